import './common.css';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';

/** The words of the action asked for: its button, its question's end, its confirmation. */
export interface ConfirmWords {
  verb: string;
  pending: string;
  confirm: string;
  consequence: string;
}

const DELETE: ConfirmWords = {
  verb: 'Delete',
  pending: 'Deleting…',
  confirm: 'Yes, delete it',
  consequence: 'This cannot be undone.',
};

/**
 * A button that asks first, a delete by default: deleting cannot be undone. The API's refusal
 * (a scheduled message the dispatch took meanwhile) is shown in its words. An action that only
 * takes an entry off a list gives its own words, a quieter button named for its entry (one of
 * many on the list) and its own class for the question.
 */
export function ConfirmDelete({
  what,
  remove,
  onDeleted,
  words = DELETE,
  label,
  quiet = false,
  className = 'confirm-delete',
}: {
  what: string;
  remove: () => Promise<void>;
  onDeleted: () => unknown;
  words?: ConfirmWords;
  label?: string;
  quiet?: boolean;
  className?: string;
}) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const deletion = useMutation({ mutationFn: remove, onSuccess: onDeleted });
  if (!asking) {
    return (
      <button
        type="button"
        className={quiet ? 'secondary' : 'danger'}
        aria-label={label}
        onClick={() => setAsking(true)}
      >
        {words.verb}
      </button>
    );
  }
  return (
    <div className={className} role="group" aria-labelledby={`${id}-question`}>
      <p id={`${id}-question`}>
        {words.verb} {what}? {words.consequence}
      </p>
      <div className="actions">
        <button
          type="button"
          className="danger"
          onClick={() => deletion.mutate()}
          disabled={deletion.isPending}
        >
          {deletion.isPending ? words.pending : words.confirm}
        </button>
        {/* The first button is gone: focus goes to the choice that changes nothing. */}
        <button
          type="button"
          className="secondary"
          autoFocus
          onClick={() => {
            deletion.reset();
            setAsking(false);
          }}
        >
          Cancel
        </button>
      </div>
      {deletion.isError && (
        <p className="error" role="alert">
          {deletion.error.message}
        </p>
      )}
    </div>
  );
}
