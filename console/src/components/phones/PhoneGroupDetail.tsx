import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { deletePhoneGroup, PHONE_GROUPS_KEY, readPhoneGroup } from '../../api/phone-groups';
import { LoadError } from '../common/LoadError';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { phonesChanged } from './keys';
import { PhoneGroupForm } from './PhoneGroupForm';

/** A new phone group (no id), or one to change or delete. */
export function PhoneGroupDetail() {
  const param = useParams().id;
  const id = param === undefined ? null : Number(param);
  const client = useQueryClient();
  const navigate = useNavigate();
  const group = useQuery({
    queryKey: [...PHONE_GROUPS_KEY, 'one', id],
    queryFn: () => readPhoneGroup(id!),
    enabled: id !== null,
  });
  const back = <Link to="/phones/groups">Back to the phone groups</Link>;
  if (id !== null && group.isError) {
    return group.error instanceof ApiError && group.error.status === 404 ? (
      <p>
        {group.error.message} {back}
      </p>
    ) : (
      <LoadError error={group.error} retry={group.refetch} />
    );
  }
  if (id !== null && group.isPending) {
    return <p role="status">Loading the phone group…</p>;
  }
  const shown = group.data ?? null;
  return (
    <article className="phone-detail" aria-labelledby="phone-group-title">
      <p>{back}</p>
      <h2 id="phone-group-title">{shown ? shown.name : 'Add a phone group'}</h2>
      <PhoneGroupForm
        key={shown?.id ?? 'new'}
        group={shown}
        onSaved={async (saved) => {
          await phonesChanged(client);
          if (!shown) {
            await navigate(`/phones/groups/${saved}`);
          }
        }}
      />
      {shown && (
        <section aria-labelledby="phone-group-delete-title">
          <h3 id="phone-group-delete-title">Delete</h3>
          <p className="hint">Its phones stay.</p>
          <ConfirmDelete
            what={`the phone group ${shown.name}`}
            remove={() => deletePhoneGroup(shown.id)}
            onDeleted={async () => {
              await navigate('/phones/groups');
              // Read again, the deleted group would answer 404 while the page leaves it.
              client.removeQueries({ queryKey: [...PHONE_GROUPS_KEY, 'one', shown.id] });
              await phonesChanged(client);
            }}
          />
        </section>
      )}
    </article>
  );
}
