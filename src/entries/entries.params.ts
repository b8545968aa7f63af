import { ApiError } from '../common/errors/api-error';
import { Params, parseId } from '../common/params/parse';
import { Cursor, ENTRY_TYPES, EntryType, isEntryType } from './entry-types';

/** get_entries' parameters (docs/api.md#get_entries), all checked before the listing is read. */
export interface EntriesInput {
  type: EntryType;
  cursor: Cursor;
}

export function parseEntriesParams(params: Params): EntriesInput {
  // Rule 1.
  const type = params.entry_type;
  if (!isEntryType(type)) {
    throw ApiError.invalid(`entry_type must be one of : ${ENTRY_TYPES.join(', ')}.`);
  }
  return { type, cursor: readCursor(params) };
}

/**
 * The slice to list. `after_id` / `before_id` win over `page` (docs/api.md#get_entries rule 5;
 * RaspiSMS leaves it open: a cursor is the more precise request); giving both cursors is refused.
 */
function readCursor(params: Params): Cursor {
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
