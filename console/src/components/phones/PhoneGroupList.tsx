import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { listEntries, readPhone as readNamed } from '../../api/entries';
import { PHONE_GROUPS_KEY, type PhoneGroup } from '../../api/phone-groups';
import { LoadError } from '../common/LoadError';

/** The caller's phone groups, 25 a page, each with its phones. */
export function PhoneGroupList() {
  const [search] = useSearchParams();
  const after = Number(search.get('after_id'));
  const cursor = Number.isInteger(after) && after > 0 ? { after_id: after } : {};
  const page = useQuery({
    queryKey: [...PHONE_GROUPS_KEY, 'page', cursor],
    queryFn: () => listEntries('phone_group', cursor),
  });
  const groups = (page.data?.entries ?? []) as PhoneGroup[];
  return (
    <>
      <p className="phones-actions">
        <Link className="button-link" to="/phones/groups/new">
          Add a phone group
        </Link>
      </p>
      {page.isError && <LoadError error={page.error} retry={page.refetch} />}
      {page.isPending && <p role="status">Loading the phone groups…</p>}
      {page.data && groups.length === 0 && (
        <p>No phone group yet: a group sends each message through one of its phones.</p>
      )}
      {groups.length > 0 && (
        <div className="table-scroll">
          <table className="phone-table">
            <caption className="visually-hidden">Your phone groups</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phones</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr key={group.id}>
                  <td data-label="Name">
                    <Link to={`/phones/groups/${group.id}`}>{group.name}</Link>
                  </td>
                  <td data-label="Phones">
                    {group.phones.length === 0
                      ? 'None'
                      : group.phones.map((phone) => readNamed(phone).name).join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.data && (cursor.after_id !== undefined || page.data.next) && (
        <nav className="pager" aria-label="Pages">
          {cursor.after_id !== undefined && <Link to="/phones/groups">First page</Link>}
          {page.data.next?.after_id !== undefined && (
            <Link to={`/phones/groups?after_id=${page.data.next.after_id}`}>Next page</Link>
          )}
        </nav>
      )}
    </>
  );
}
