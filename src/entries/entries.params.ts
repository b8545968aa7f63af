import { ApiError } from '../common/errors/api-error';
import { Cursor, parseCursor } from '../common/paging/cursor';
import { MAX_ENTRY_NAME } from '../common/params/entry-name';
import { isAbsent, Params, parseId } from '../common/params/parse';
import { displayName } from '../common/params/query-string';
import { normalizePhoneNumber } from '../common/phone/phone-number';
import { parseApiDatetime } from '../common/time/datetime';
import { ENTRY_TYPES, EntryType, isEntryType } from './entry-types';

/** get_entries' parameters (docs/api.md#get_entries), all checked before the listing is read. */
export interface EntriesInput {
  type: EntryType;
  cursor: Cursor;
  filters: Filter[];
  /** The filters as sent, which `next` and `prev` carry. */
  filterParams: Record<string, string>;
}

/**
 * One condition on a listed column, all of them ANDed. `exact` is an equality that tells case
 * apart on every engine (MariaDB's collation folds it); `contains` compares with the column
 * lowercased by the application (`name_key`), so that it folds case the same on every engine.
 */
export type Filter =
  | { column: string; op: 'equals' | 'exact' | 'from' | 'to'; value: string | number }
  | { column: string; op: 'contains'; value: string };

/** How one filter parameter reads its value. */
type FilterKind = 'id' | 'number' | 'tag' | 'from' | 'to' | 'name' | readonly string[];

const SENDED_STATUSES = ['unknown', 'delivered', 'failed'] as const;
const RECEIVED_STATUSES = ['read', 'unread'] as const;

/** The filters of each entry type, in the order they are checked (docs/api.md#get_entries-filters). */
const FILTERS: Partial<Record<EntryType, Record<string, FilterKind>>> = {
  sended: {
    status: SENDED_STATUSES,
    id_phone: 'id',
    destination: 'number',
    tag: 'tag',
    originating_scheduled: 'id',
    at_from: 'from',
    at_to: 'to',
  },
  received: {
    status: RECEIVED_STATUSES,
    id_phone: 'id',
    origin: 'number',
    at_from: 'from',
    at_to: 'to',
  },
  scheduled: { tag: 'tag', id_phone: 'id', at_from: 'from', at_to: 'to' },
  contact: { name: 'name', number: 'number' },
  group: { name: 'name' },
  conditional_group: { name: 'name' },
  phone_group: { name: 'name' },
};

/** Every filter name of any type, the order in which refusals name them. */
const FILTER_NAMES = [...new Set(Object.values(FILTERS).flatMap((own) => Object.keys(own)))];

/**
 * What get_entries reads besides filters: the path's type, the paging parameters and the key.
 * Any other parameter is refused rather than ignored: a misspelt filter would widen the listing.
 */
const NOT_FILTERS = new Set(['entry_type', 'page', 'after_id', 'before_id', 'api_key']);

/** The refused parameters a message names, so that a query of many stays a short answer. */
const MAX_NAMED = 10;

/** A tag is stored in VARCHAR(1000). */
const MAX_TAG_CHARACTERS = 1000;

/**
 * `country` is the caller's default country, which national numbers are read in; `timeZone` the
 * service's, which dates are read in.
 */
export function parseEntriesParams(
  params: Params,
  country: string,
  timeZone: string,
): EntriesInput {
  // Rule 1.
  const type = params.entry_type;
  if (!isEntryType(type)) {
    throw ApiError.invalid(`entry_type must be one of : ${ENTRY_TYPES.join(', ')}.`);
  }
  const cursor = parseCursor(params);
  // Rule 6.
  const own = FILTERS[type] ?? {};
  const refused = [...new Set([...FILTER_NAMES, ...Object.keys(params)])].filter(
    (name) => !Object.hasOwn(own, name) && !NOT_FILTERS.has(name) && !isAbsent(params[name]),
  );
  if (refused.length > 0) {
    const allowed = Object.keys(own);
    const named = refused.slice(0, MAX_NAMED).map(displayName).join(', ');
    const more = refused.length > MAX_NAMED ? ` (and ${refused.length - MAX_NAMED} more)` : '';
    throw ApiError.invalid(
      `${named}${more} : not a filter of ${type} entries; ` +
        (allowed.length > 0 ? `their filters are ${allowed.join(', ')}.` : 'they have none.'),
    );
  }
  const filters: Filter[] = [];
  const filterParams: Record<string, string> = {};
  for (const [name, kind] of Object.entries(own)) {
    const value = params[name];
    if (isAbsent(value)) {
      continue;
    }
    if (typeof value !== 'string') {
      throw ApiError.invalid(`${name} must be a single value, not a list or an object.`);
    }
    filters.push(readFilter(name, kind, value, country, timeZone));
    filterParams[name] = value;
  }
  return { type, cursor, filters, filterParams };
}

function readFilter(
  name: string,
  kind: FilterKind,
  value: string,
  country: string,
  timeZone: string,
): Filter {
  const column = name === 'at_from' || name === 'at_to' ? 'at' : name;
  if (typeof kind !== 'string') {
    if (!kind.includes(value)) {
      throw ApiError.invalid(`${name} must be one of : ${kind.join(', ')}, got ${shown(value)}.`);
    }
    return { column, op: 'equals', value };
  }
  switch (kind) {
    case 'id':
      return { column, op: 'equals', value: parseId(value, name) ?? 0 };
    case 'number': {
      const number = normalizePhoneNumber(value, country);
      if (number === null) {
        throw ApiError.invalid(`${name} must be a valid phone number, got ${shown(value)}.`);
      }
      return { column, op: 'equals', value: number };
    }
    case 'tag':
      if ([...value].length > MAX_TAG_CHARACTERS) {
        throw ApiError.invalid(`${name} must be at most ${MAX_TAG_CHARACTERS} characters long.`);
      }
      return { column, op: 'exact', value };
    case 'from':
    case 'to': {
      const utc = parseApiDatetime(value, timeZone);
      if (utc === null) {
        throw ApiError.invalid(
          `${name} must be a date of format "YYYY-MM-DD HH:MM:SS" in the ${timeZone} time ` +
            `zone, got ${shown(value)}.`,
        );
      }
      return { column, op: kind, value: utc };
    }
    case 'name': {
      const part = value.normalize('NFC').toLowerCase();
      if ([...part].length > MAX_ENTRY_NAME) {
        throw ApiError.invalid(`${name} must be at most ${MAX_ENTRY_NAME} characters long.`);
      }
      return { column: 'name_key', op: 'contains', value: part };
    }
  }
}

/** A value quoted for a message, shortened. */
function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
