import { ApiError } from '../errors/api-error';
import { isAbsent } from './parse';

/** Names of contacts, groups, conditional groups and phone groups: 1 to 100 characters. */
export const MAX_ENTRY_NAME = 100;

/**
 * The `name` of an entry, trimmed and checked (docs/api.md#conventions); undefined when absent,
 * which a create refuses as missing and an update takes as "keep it".
 */
export function parseEntryName(value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw ApiError.invalid('name must be a string.');
  }
  const name = String(value).normalize('NFC').trim();
  if (name === '') {
    throw ApiError.invalid('name must not be empty.');
  }
  if ([...name].length > MAX_ENTRY_NAME) {
    throw ApiError.invalid(`name must be at most ${MAX_ENTRY_NAME} characters long.`);
  }
  return name;
}

/** `name` of a create: required. */
export function requireEntryName(value: unknown): string {
  const name = isAbsent(value) ? undefined : parseEntryName(value);
  if (name === undefined) {
    throw ApiError.missing('name is required.');
  }
  return name;
}

/**
 * What names are compared by for uniqueness: the same on every database engine, since the
 * application computes it (stored as `name_key`, unique per user and entry type).
 */
export function nameKey(name: string): string {
  // Lowercasing lengthens a few letters (İ); the column holds MAX_ENTRY_NAME characters.
  return [...name.normalize('NFC').trim().toLowerCase()].slice(0, MAX_ENTRY_NAME).join('');
}

/** The INVALID_PARAMETER of a name another entry of the same type already has. */
export function nameTaken(name: string, noun: string): ApiError {
  return ApiError.invalid(`name : you already have a ${noun} named ${JSON.stringify(name)}.`);
}
