import { useSearchParams } from 'react-router';
import { type ListQuery, NEWEST } from '../../api/entries';
import { useCursor } from '../common/cursor';

/** The three lists of the Messages page: their path and the API's entry type. */
export type MessageKind = 'sent' | 'received' | 'scheduled';

/**
 * The filters get_entries takes for each list, by the API's own names (it refuses any other):
 * they are the names of the page's query string too, so a filtered list is a bookmark.
 */
export const FILTERS = {
  sent: ['status', 'id_phone', 'destination', 'tag', 'originating_scheduled', 'at_from', 'at_to'],
  received: ['status', 'id_phone', 'origin', 'at_from', 'at_to'],
  scheduled: ['tag', 'id_phone', 'at_from', 'at_to'],
} as const satisfies Record<MessageKind, readonly (keyof ListQuery)[]>;

export type FilterName = (typeof FILTERS)[MessageKind][number];

const NUMERIC: readonly string[] = ['id_phone', 'originating_scheduled'];

/** The filters in the page's query string, by name, as they are written there. */
export function useFilterValues(kind: MessageKind): Partial<Record<FilterName, string>> {
  const [search] = useSearchParams();
  const values: Partial<Record<FilterName, string>> = {};
  for (const name of FILTERS[kind]) {
    const value = search.get(name);
    if (value) {
      values[name] = value;
    }
  }
  return values;
}

/**
 * get_entries' query for the list the page shows: its filters and its cursor. Without a
 * cursor the list opens on its newest entries (the API lists in id order, oldest first).
 */
export function useListQuery(kind: MessageKind): ListQuery {
  const filters = useFilterValues(kind);
  const cursor = useCursor();
  const query: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(filters)) {
    query[name] = NUMERIC.includes(name) ? Number(value) : value;
  }
  return { ...(query as ListQuery), ...(cursor ?? NEWEST) };
}
