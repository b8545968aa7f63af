import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseId, requiredMessage } from '../common/params/parse';
import { parseApiDatetime } from '../common/time/datetime';

/** get_sms_status_stats' parameters (docs/api.md#get_sms_status_stats). */
export interface StatsInput {
  /** UTC bounds, both inclusive, read in the service's time zone. */
  start: string;
  end: string;
  /** Not yet known to be one of the caller's phones: rule 3 asks the database. */
  phoneId?: number;
}

export function parseStatsParams(params: Params, timeZone: string): StatsInput {
  // Rule 1.
  const missing = ['start', 'end'].filter((name) => isAbsent(params[name]));
  if (missing.length > 0) {
    throw ApiError.missing(requiredMessage(missing));
  }
  // Rule 2, with both bounds inclusive and `YYYY-MM-DD` for midnight
  // (docs/api-choices.md#dates-and-time-zone).
  const start = statsDatetime(params.start, 'start', timeZone);
  const end = statsDatetime(params.end, 'end', timeZone);
  if (end < start) {
    throw ApiError.invalid('end must not be before start.');
  }
  // Rule 3's format; whose phone it is comes next, in the service.
  return { start, end, phoneId: parseId(params.id_phone, 'id_phone') };
}

function statsDatetime(value: unknown, name: string, timeZone: string): string {
  const utc = typeof value === 'string' ? parseApiDatetime(value, timeZone, true) : null;
  if (utc === null) {
    throw ApiError.invalid(
      `${name} must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".`,
    );
  }
  return utc;
}
