import { ApiError } from '../errors/api-error';
import { Params, parseId } from '../params/parse';

/** Entries per page of every listing (docs/api.md#get_entries). */
export const PAGE_SIZE = 25;

/** Which slice of a listing to read (docs/api.md#get_entries). */
export type Cursor =
  { mode: 'page'; page: number } | { mode: 'after'; id: number } | { mode: 'before'; id: number };

/**
 * The slice to list. `after_id` / `before_id` win over `page` (docs/api.md#get_entries rule 5;
 * RaspiSMS leaves it open: a cursor is the more precise request); giving both cursors is refused.
 */
export function parseCursor(params: Params): Cursor {
  const page = parseId(params.page, 'page') ?? 0;
  const after = parseId(params.after_id, 'after_id');
  const before = parseId(params.before_id, 'before_id');
  if (after !== undefined && before !== undefined) {
    throw ApiError.invalid('after_id, before_id : give at most one of after_id and before_id.');
  }
  if (after !== undefined) {
    return { mode: 'after', id: after };
  }
  if (before !== undefined) {
    return { mode: 'before', id: before };
  }
  return { mode: 'page', page };
}
