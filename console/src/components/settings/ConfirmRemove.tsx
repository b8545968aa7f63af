import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { removeStop } from '../../api/stop-list';

/** Removes a number from the STOP list after asking: messages reach the number again. */
export function ConfirmRemove({
  id,
  number,
  onRemoved,
}: {
  id: number;
  number: string;
  onRemoved: () => unknown;
}) {
  const questionId = useId();
  const [asking, setAsking] = useState(false);
  const removal = useMutation({ mutationFn: () => removeStop(id), onSuccess: onRemoved });
  if (!asking) {
    return (
      <button
        type="button"
        className="secondary"
        aria-label={`Remove ${number}`}
        onClick={() => setAsking(true)}
      >
        Remove
      </button>
    );
  }
  return (
    <div className="confirm-remove" role="group" aria-labelledby={questionId}>
      <p id={questionId}>Remove {number} from the STOP list? Messages will reach it again.</p>
      <div className="actions">
        <button
          type="button"
          className="danger"
          onClick={() => removal.mutate()}
          disabled={removal.isPending}
        >
          {removal.isPending ? 'Removing…' : 'Yes, remove it'}
        </button>
        {/* The Remove button is gone: focus goes to the choice that changes nothing. */}
        <button
          type="button"
          className="secondary"
          autoFocus
          onClick={() => {
            removal.reset();
            setAsking(false);
          }}
        >
          Cancel
        </button>
      </div>
      {removal.isError && (
        <p className="error" role="alert">
          {removal.error.message}
        </p>
      )}
    </div>
  );
}
