import { ApiError } from '../errors/api-error';
import { parseIdList } from './parse';

/** Most ids one list parameter may hold (docs/api.md#conventions). */
export const MAX_LIST_IDS = 10_000;

/**
 * A list of ids (`contacts`, `phones`…): one id or a list, in bracket form (`contacts[]=3`), as a
 * JSON array, or a JSON array in a string; duplicates count once, in first-seen order. Undefined
 * when the parameter is absent; an empty value (`contacts=`) is the empty list, which an update
 * takes as "remove them all".
 */
export function parseIdSet(value: unknown, name: string): number[] | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  let list: unknown = value;
  if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      list = JSON.parse(value) as unknown;
    } catch {
      throw ApiError.invalid(`${name} must be an id, a list of ids or a JSON array of ids.`);
    }
    if (!Array.isArray(list)) {
      throw ApiError.invalid(`${name} must be an id, a list of ids or a JSON array of ids.`);
    }
  }
  if (Array.isArray(list) && list.length > MAX_LIST_IDS) {
    throw ApiError.invalid(`${name} : at most ${MAX_LIST_IDS} ids per request.`);
  }
  const ids = [...new Set(parseIdList(list, name))];
  if (ids.length > MAX_LIST_IDS) {
    throw ApiError.invalid(`${name} : at most ${MAX_LIST_IDS} ids per request.`);
  }
  return ids;
}

/** The INVALID_PARAMETER of ids that are not the caller's entries, naming (the first 20 of) them. */
export function notYours(name: string, ids: readonly number[], noun: string): ApiError {
  const shown =
    ids.slice(0, 20).join(', ') + (ids.length > 20 ? ` and ${ids.length - 20} more` : '');
  return ApiError.invalid(
    `${name} : ${ids.length === 1 ? `${shown} is not the id of one` : `${shown} are not ids`} of your ${noun}.`,
  );
}
