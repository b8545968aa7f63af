import { Cursor, PAGE_SIZE } from './cursor';

/**
 * The `next` / `prev` links of a page of a listing ordered by id (docs/api.md#get_entries rules 3
 * and 4). `ids` are the page's ids in ascending order; `link` makes the listing's URL of a
 * cursor, in the listing's own form (a path segment, query parameters).
 */
export function pageLinks(
  cursor: Cursor,
  ids: readonly number[],
  link: (cursor: Cursor) => string,
): { next: string | null; prev: string | null } {
  const first = ids[0];
  const last = ids[ids.length - 1];
  // Rule 3.
  const hasNext = ids.length === PAGE_SIZE || (ids.length > 0 && cursor.mode === 'before');
  // Rule 4.
  const hasPrev =
    (cursor.mode === 'page' && cursor.page > 0) || (ids.length > 0 && cursor.mode !== 'page');
  let prev: string | null = null;
  if (hasPrev) {
    // A page past the end has no first entry to go before: it leads back to the page before it.
    prev =
      first === undefined && cursor.mode === 'page'
        ? link({ mode: 'page', page: cursor.page - 1 })
        : link({ mode: 'before', id: first });
  }
  return { next: hasNext ? link({ mode: 'after', id: last }) : null, prev };
}

/** A cursor as the query parameters of a listing that takes them in its query string. */
export function cursorQuery(cursor: Cursor): Record<string, number> {
  switch (cursor.mode) {
    case 'page':
      return { page: cursor.page };
    case 'after':
      return { after_id: cursor.id };
    case 'before':
      return { before_id: cursor.id };
  }
}
