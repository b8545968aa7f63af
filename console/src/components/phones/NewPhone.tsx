import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ADAPTERS_KEY, listAdapters } from '../../api/adapters';
import { LoadError } from '../common/LoadError';
import { phonesChanged } from './keys';
import { PhoneForm } from './PhoneForm';

/** Adds a phone; once the API accepted it, its page opens with its callback URLs. */
export function NewPhone() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const adapters = useQuery({ queryKey: ADAPTERS_KEY, queryFn: listAdapters, staleTime: Infinity });
  return (
    <article className="phone-detail" aria-labelledby="new-phone-title">
      <p>
        <Link to="/phones">Back to the phones</Link>
      </p>
      <h2 id="new-phone-title">Add a phone</h2>
      {adapters.isError && <LoadError error={adapters.error} retry={adapters.refetch} />}
      {adapters.isPending && <p role="status">Loading the adapters…</p>}
      {adapters.data && (
        <PhoneForm
          adapters={adapters.data}
          phone={null}
          onSaved={async (id) => {
            await phonesChanged(client);
            await navigate(`/phones/${id}`);
          }}
        />
      )}
    </article>
  );
}
