import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useLocation } from 'react-router';
import { ApiError } from '../../api/client';
import { NEWEST } from '../../api/entries';
import { LoadError } from '../common/LoadError';
import { Pager } from '../common/Pager';
import { useCursor } from '../common/cursor';
import { ListSearch, type SearchField, useSearchValues } from './ListSearch';
import { type NamedEntry, type NamedEntryKind, slugOf } from './named-entry';

const SEARCH: readonly SearchField[] = [{ name: 'name', label: 'Name contains' }];

/**
 * A list of groups or conditional groups, newest first, 25 a page as the API pages them,
 * searched by get_entries' `name` filter; the search and the page are in the address.
 */
export function NamedList<T extends NamedEntry, F>({ kind }: { kind: NamedEntryKind<T, F> }) {
  const { title, path, noun, queryKey, column, describe } = kind;
  const filters = useSearchValues(SEARCH);
  const cursor = useCursor();
  const { search } = useLocation();
  const query = { ...filters, ...(cursor ?? NEWEST) };
  const result = useQuery({
    queryKey: [...queryKey, 'list', query],
    queryFn: () => kind.list(query),
    placeholderData: keepPreviousData,
  });
  const refused = result.error instanceof ApiError && result.error.status === 400;
  const titleId = `${slugOf(noun)}-list-title`;
  return (
    <section aria-labelledby={titleId} aria-busy={result.isFetching}>
      <div className="list-heading">
        <h2 id={titleId}>{title}</h2>
        <Link className="button-link" to={`${path}/new`}>
          New {noun}
        </Link>
      </div>
      <ListSearch
        label={`Search ${title.toLowerCase()}`}
        fields={SEARCH}
        error={refused ? result.error : null}
      />
      {result.isPending ? (
        <p role="status">Loading…</p>
      ) : result.isError ? (
        !refused && <LoadError error={result.error} retry={result.refetch} />
      ) : result.data.groups.length === 0 ? (
        <p className="empty">
          {cursor
            ? `No ${title.toLowerCase()} on this page.`
            : filters.name
              ? `No ${noun} matches this search.`
              : `No ${title.toLowerCase()} yet.`}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="entry-table">
            <caption className="visually-hidden">{title}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">{column}</th>
              </tr>
            </thead>
            <tbody>
              {[...result.data.groups].reverse().map((entry) => (
                <tr key={entry.id}>
                  <td className="entry-name">
                    <Link to={`${path}/${entry.id}`} state={{ listSearch: search }}>
                      {entry.name}
                    </Link>
                  </td>
                  <td className="entry-data" data-label={column}>
                    {describe(entry)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.data && (
        <Pager
          older={result.data.prev}
          newer={result.data.next}
          count={result.data.groups.length}
        />
      )}
    </section>
  );
}
