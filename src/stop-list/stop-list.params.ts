import { ApiError } from '../common/errors/api-error';
import { Cursor, parseCursor } from '../common/paging/cursor';
import { isAbsent, Params, parseId } from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';

/** The longest `number` read: E.164 is 16 characters, and formatting adds a few. */
const MAX_NUMBER_INPUT = 100;

/** GET /api/stop/'s parameters (docs/api.md#get_stop): the slice, as get_entries reads it. */
export interface ListStopsInput {
  cursor: Cursor;
}

/** POST /api/stop/'s parameter, normalised to E.164 (docs/api.md#post_stop). */
export interface AddStopInput {
  number: string;
}

/** DELETE /api/stop/{id}/'s parameter. */
export interface StopIdInput {
  id: number;
}

export function parseListStopsParams(params: Params): ListStopsInput {
  return { cursor: parseCursor(params) };
}

/** `defaultCountry`: the caller's `default_phone_country`, for national numbers. */
export function parseAddStopParams(params: Params, defaultCountry: string): AddStopInput {
  const value = params.number;
  // Rule 1.
  if (isAbsent(value) || (typeof value === 'string' && value.trim() === '')) {
    throw ApiError.missing('number is required: the phone number to stop sending to.');
  }
  // Rule 2.
  const number =
    typeof value === 'string' && value.length <= MAX_NUMBER_INPUT
      ? normalizePhoneNumber(value, defaultCountry)
      : null;
  if (number === null) {
    throw ApiError.invalid(
      'number must be a valid phone number, in international format (+…)' +
        `${defaultCountry ? ` or a national number of ${defaultCountry.toUpperCase()}` : ''}.`,
    );
  }
  return { number };
}

export function parseStopIdParams(params: Params): StopIdInput {
  const id = parseId(params.id, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of a number of your STOP list.');
  }
  return { id };
}
