import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ADAPTERS_KEY, listAdapters } from '../../api/adapters';
import { ApiError } from '../../api/client';
import { deletePhone, PHONES_KEY, readPhone } from '../../api/phones';
import { LoadError } from '../common/LoadError';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { CallbackUrls } from './CallbackUrls';
import { limitsText, rateText } from './format';
import { phonesChanged } from './keys';
import { PhoneForm } from './PhoneForm';
import { PhoneStatusBadge } from './PhoneStatusBadge';
import { StatusActions } from './StatusActions';

/** One phone: its status with the actions on it, its callback URLs, its form, its deletion. */
export function PhoneDetail() {
  const id = Number(useParams().id);
  const client = useQueryClient();
  const navigate = useNavigate();
  const phone = useQuery({ queryKey: [...PHONES_KEY, 'one', id], queryFn: () => readPhone(id) });
  const adapters = useQuery({ queryKey: ADAPTERS_KEY, queryFn: listAdapters, staleTime: Infinity });
  const back = <Link to="/phones">Back to the phones</Link>;
  if (phone.error instanceof ApiError && phone.error.status === 404) {
    return (
      <p>
        {phone.error.message} {back}
      </p>
    );
  }
  if (phone.isError || adapters.isError) {
    const error = phone.error ?? adapters.error!;
    return (
      <LoadError error={error} retry={() => Promise.all([phone.refetch(), adapters.refetch()])} />
    );
  }
  if (phone.isPending || adapters.isPending) {
    return <p role="status">Loading the phone…</p>;
  }
  const shown = phone.data;
  return (
    <article className="phone-detail" aria-labelledby="phone-title">
      <p>{back}</p>
      <h2 id="phone-title">{shown.name}</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <PhoneStatusBadge status={shown.status} />
        </dd>
        <dt>Adapter</dt>
        <dd>{shown.adapter}</dd>
        <dt>Priority</dt>
        <dd>{shown.priority}</dd>
        <dt>Rate</dt>
        <dd>{rateText(shown.rate)}</dd>
        <dt>Limits</dt>
        <dd>{limitsText(shown.limits)}</dd>
      </dl>
      <StatusActions phone={shown} />
      <CallbackUrls phone={shown} />
      <section aria-labelledby="phone-edit-title">
        <h3 id="phone-edit-title">Settings</h3>
        <PhoneForm adapters={adapters.data} phone={shown} onSaved={() => phonesChanged(client)} />
      </section>
      <section aria-labelledby="phone-delete-title">
        <h3 id="phone-delete-title">Delete</h3>
        <p className="hint">Its messages stay, without a phone.</p>
        <ConfirmDelete
          what={`the phone ${shown.name}`}
          remove={() => deletePhone(shown.id)}
          onDeleted={async () => {
            await navigate('/phones');
            // Read again, the deleted phone would answer 404 while the page leaves it.
            client.removeQueries({ queryKey: [...PHONES_KEY, 'one', shown.id] });
            await phonesChanged(client);
          }}
        />
      </section>
    </article>
  );
}
