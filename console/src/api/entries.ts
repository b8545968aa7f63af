import { answerOf, api, type paths } from './client';

/** The entry types get_entries lists. */
export type EntryType = paths['/api/list/{entry_type}']['get']['parameters']['path']['entry_type'];

/** get_entries' filters and cursors. */
export type EntryQuery = NonNullable<paths['/api/list/{entry_type}']['get']['parameters']['query']>;

/** What get_entries answers for each entry, whatever its type. */
export type ListedEntry = NonNullable<
  paths['/api/list/{entry_type}']['get']['responses'][200]['content']['application/json']['response']
>[number];

/** The API's page size: a page this long may have another after it (docs/api.md, get_entries). */
export const PAGE_SIZE = 25;

/** One page of the caller's entries of a type, by id, from the first after `query.after_id`. */
export function listEntries(entryType: EntryType, query: EntryQuery = {}): Promise<ListedEntry[]> {
  return answerOf(
    api.GET('/api/list/{entry_type}', { params: { path: { entry_type: entryType }, query } }),
  );
}
