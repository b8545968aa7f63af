import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseId, requiredMessage } from '../common/params/parse';
import { parsePeriodBound } from '../common/time/datetime';

/** get_sms_status_stats' parameters (docs/api.md#get_sms_status_stats). */
export interface StatsInput {
  /** UTC bounds, both inclusive, read in the service's time zone. */
  start: string;
  end: string;
  /** Not yet known to be one of the caller's phones: rule 3 asks the database. */
  phoneId?: number;
}

export function parseStatsParams(params: Params, timeZone: string): StatsInput {
  const period = parsePeriodParams(params, timeZone);
  // Rule 3's format; whose phone it is comes next, in the service.
  return { ...period, phoneId: parseId(params.id_phone, 'id_phone') };
}

/** Rules 1 and 2 of get_sms_status_stats: `start` and `end`, also those of the dashboard's. */
export function parsePeriodParams(
  params: Params,
  timeZone: string,
): { start: string; end: string } {
  // Rule 1.
  const missing = ['start', 'end'].filter((name) => isAbsent(params[name]));
  if (missing.length > 0) {
    throw ApiError.missing(requiredMessage(missing));
  }
  // Rule 2, with both bounds inclusive and `YYYY-MM-DD` for the whole day
  // (docs/api-choices.md#dates-and-time-zone).
  const start = statsBound(params.start, 'start', timeZone);
  const end = statsBound(params.end, 'end', timeZone);
  if (end < start) {
    throw ApiError.invalid('end must not be before start.');
  }
  return { start, end };
}

function statsBound(value: unknown, name: 'start' | 'end', timeZone: string): string {
  const utc = typeof value === 'string' ? parsePeriodBound(value, timeZone, name) : null;
  if (utc === null) {
    throw ApiError.invalid(
      `${name} must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".`,
    );
  }
  return utc;
}
