import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { checkPhoneStatus, forcePhoneStatus, type PhoneDetails } from '../../api/phones';
import { phonesChanged } from './keys';

/**
 * Checks the phone's status with its provider (post_update_phone_status), or sets it by hand
 * (post_change_phone_status): a disabled phone sends nothing until it is made available again.
 */
export function StatusActions({ phone }: { phone: PhoneDetails }) {
  const id = useId();
  const client = useQueryClient();
  const [forced, setForced] = useState<'available' | 'disabled'>(
    phone.status === 'disabled' ? 'available' : 'disabled',
  );
  const check = useMutation({
    mutationFn: () => checkPhoneStatus(phone.id),
    onSettled: () => phonesChanged(client),
  });
  const force = useMutation({
    mutationFn: () => forcePhoneStatus(phone.id, forced),
    onSettled: () => phonesChanged(client),
  });
  const failure = check.error ?? force.error;
  return (
    <section className="phone-status-actions" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Status</h3>
      <div className="inline-actions">
        <button
          type="button"
          onClick={() => {
            force.reset();
            check.mutate();
          }}
          disabled={check.isPending}
        >
          {check.isPending ? 'Checking…' : 'Check status'}
        </button>
      </div>
      <div className="inline-actions">
        <label htmlFor={`${id}-force`}>Set the status by hand</label>
        <select
          id={`${id}-force`}
          value={forced}
          onChange={(event) => setForced(event.target.value as 'available' | 'disabled')}
        >
          <option value="available">available</option>
          <option value="disabled">disabled</option>
        </select>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            check.reset();
            force.mutate();
          }}
          disabled={force.isPending}
        >
          Set status
        </button>
      </div>
      {check.isSuccess && <p role="status">The provider reports: {check.data}.</p>}
      {force.isSuccess && <p role="status">The status is now {force.data}.</p>}
      {failure && (
        <p className="error" role="alert">
          {failure.message}
        </p>
      )}
    </section>
  );
}
