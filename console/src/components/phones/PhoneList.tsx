import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { listPhonePage, PHONES_KEY } from '../../api/phones';
import { LoadError } from '../common/LoadError';
import { limitsText, rateText } from './format';
import { PhoneStatusBadge } from './PhoneStatusBadge';

/** The caller's phones, 25 a page in the API's order, each with its status and sending rules. */
export function PhoneList() {
  const [search] = useSearchParams();
  const after = Number(search.get('after_id'));
  const cursor = Number.isInteger(after) && after > 0 ? { after_id: after } : {};
  const page = useQuery({
    queryKey: [...PHONES_KEY, 'page', cursor],
    queryFn: () => listPhonePage(cursor),
  });
  return (
    <>
      <p className="phones-actions">
        <Link className="button-link" to="/phones/new">
          Add a phone
        </Link>
      </p>
      {page.isError && <LoadError error={page.error} retry={page.refetch} />}
      {page.isPending && <p role="status">Loading the phones…</p>}
      {page.data && page.data.phones.length === 0 && <p>No phone yet: add one to send messages.</p>}
      {page.data && page.data.phones.length > 0 && (
        <div className="table-scroll">
          <table className="phone-table">
            <caption className="visually-hidden">Your phones</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Adapter</th>
                <th scope="col">Status</th>
                <th scope="col">Priority</th>
                <th scope="col">Rate</th>
                <th scope="col">Limits</th>
              </tr>
            </thead>
            <tbody>
              {page.data.phones.map((phone) => (
                <tr key={phone.id}>
                  <td data-label="Name">
                    <Link to={`/phones/${phone.id}`}>{phone.name}</Link>
                  </td>
                  <td data-label="Adapter">{phone.adapter}</td>
                  <td data-label="Status">
                    <PhoneStatusBadge status={phone.status} />
                  </td>
                  <td data-label="Priority">{phone.priority}</td>
                  <td data-label="Rate">{rateText(phone.rate)}</td>
                  <td data-label="Limits">{limitsText(phone.limits)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.data && (cursor.after_id !== undefined || page.data.next) && (
        <nav className="pager" aria-label="Pages">
          {cursor.after_id !== undefined && <Link to="/phones">First page</Link>}
          {page.data.next?.after_id !== undefined && (
            <Link to={`/phones?after_id=${page.data.next.after_id}`}>Next page</Link>
          )}
        </nav>
      )}
    </>
  );
}
