import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../../api/client';
import { CONTACTS_KEY, type Contact, listContacts } from '../../api/contacts';
import { NEWEST } from '../../api/entries';
import { LoadError } from '../common/LoadError';
import { Pager } from '../common/Pager';
import { useCursor } from '../common/cursor';
import { ListSearch, type SearchField, useSearchValues } from './ListSearch';
import { dataSummary } from './contact-data';

const SEARCH: readonly SearchField[] = [
  { name: 'name', label: 'Name contains' },
  { name: 'number', label: 'Number', inputMode: 'tel' },
];

/**
 * The caller's contacts, newest first, 25 a page as the API pages them, searched by the API's
 * `name` and `number` filters; the search and the page are in the address.
 */
export function ContactList() {
  const filters = useSearchValues(SEARCH);
  const cursor = useCursor();
  const query = { ...filters, ...(cursor ?? NEWEST) };
  const result = useQuery({
    queryKey: [...CONTACTS_KEY, 'list', query],
    queryFn: () => listContacts(query),
    placeholderData: keepPreviousData,
  });
  const refused = result.error instanceof ApiError && result.error.status === 400;
  const searched = Object.keys(filters).length > 0;
  return (
    <section aria-labelledby="contact-list-title" aria-busy={result.isFetching}>
      <div className="list-heading">
        <h2 id="contact-list-title">Contacts</h2>
        <Link className="button-link" to="/contacts/new">
          New contact
        </Link>
      </div>
      <ListSearch label="Search contacts" fields={SEARCH} error={refused ? result.error : null} />
      {result.isPending ? (
        <p role="status">Loading…</p>
      ) : result.isError ? (
        !refused && <LoadError error={result.error} retry={result.refetch} />
      ) : result.data.contacts.length === 0 ? (
        <p className="empty">
          {cursor
            ? 'No contacts on this page.'
            : searched
              ? 'No contact matches this search.'
              : 'No contacts yet: add one, or import a CSV file.'}
        </p>
      ) : (
        <ContactTable contacts={[...result.data.contacts].reverse()} />
      )}
      {result.data && (
        <Pager
          older={result.data.prev}
          newer={result.data.next}
          count={result.data.contacts.length}
        />
      )}
    </section>
  );
}

function ContactTable({ contacts }: { contacts: Contact[] }) {
  const { search } = useLocation();
  return (
    <div className="table-scroll">
      <table className="entry-table">
        <caption className="visually-hidden">Contacts, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Number</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {contacts.map((contact) => (
            <tr key={contact.id}>
              <td className="entry-name">
                <Link to={`/contacts/${contact.id}`} state={{ listSearch: search }}>
                  {contact.name}
                </Link>
              </td>
              <td className="nowrap" data-label="Number">
                {contact.number}
              </td>
              <td className="entry-data" data-label="Data">
                {dataSummary(contact.data)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
