import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseOptionalString } from '../common/params/parse';
import { parseApiDatetime } from '../common/time/datetime';
import { Period } from './usage.repository';

/** get_usage's parameters (docs/api.md#get_usage), all checked before the count. */
export interface UsageInput {
  /** UTC bounds, read in the service's time zone. */
  period: Period;
  /** A LIKE pattern used verbatim, as RaspiSMS does (`%`, `_` wildcards); empty means no filter. */
  tag?: string;
}

export function parseUsageParams(params: Params, timeZone: string): UsageInput {
  // Rule 1.
  return {
    period: {
      start: optionalDatetime(params.start, 'start', timeZone),
      end: optionalDatetime(params.end, 'end', timeZone),
    },
    tag: parseOptionalString(params.tag, 'tag') || undefined,
  };
}

function optionalDatetime(value: unknown, name: string, timeZone: string): string | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  const utc = typeof value === 'string' ? parseApiDatetime(value, timeZone) : null;
  if (utc === null) {
    throw ApiError.invalid(`${name} must be a date of format "YYYY-MM-DD HH:MM:SS".`);
  }
  return utc;
}
