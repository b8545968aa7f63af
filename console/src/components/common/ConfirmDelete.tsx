import './common.css';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';

/**
 * A delete button that asks first: deleting a message cannot be undone. The API's refusal (a
 * scheduled message the dispatch took meanwhile) is shown in its words.
 */
export function ConfirmDelete({
  what,
  remove,
  onDeleted,
}: {
  what: string;
  remove: () => Promise<void>;
  onDeleted: () => unknown;
}) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const deletion = useMutation({ mutationFn: remove, onSuccess: onDeleted });
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  }
  return (
    <div className="confirm-delete" role="group" aria-labelledby={`${id}-question`}>
      <p id={`${id}-question`}>Delete {what}? This cannot be undone.</p>
      <div className="actions">
        <button
          type="button"
          className="danger"
          onClick={() => deletion.mutate()}
          disabled={deletion.isPending}
        >
          {deletion.isPending ? 'Deleting…' : 'Yes, delete it'}
        </button>
        {/* The Delete button is gone: focus goes to the choice that deletes nothing. */}
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
