import { DateTime } from 'luxon';
import { API_DATETIME_FORMAT } from '../time/datetime';
import { phpStrtotime } from '../time/php-date';

/** The `phone_limit.startpoint` column's length: a longer text could not be stored. */
export const MAX_STARTPOINT_LENGTH = 254;

/**
 * RaspiSMS's documentation promises that `this month midnight` is the first day of the month at
 * 00:00, but PHP reads it as today's midnight (`this month` moves by zero months). We keep the
 * documented meaning, also when more relative parts follow (`this month midnight -1 month`).
 */
const THIS_MONTH_MIDNIGHT = /^\s*this\s+month\s+midnight(?=\s|$)/i;

/**
 * The start of a limit's counting window: a PHP relative date (`today`, `-24 hours`,
 * `this week midnight`…) evaluated at `now` in the service time zone `zone`, as the UTC
 * `YYYY-MM-DD HH:MM:SS` string `sended.at` holds. Null when PHP's parser would refuse it.
 */
export function startpointToUtc(startpoint: string, now: Date, zone: string): string | null {
  if (startpoint.length > MAX_STARTPOINT_LENGTH) {
    return null;
  }
  const text = startpoint.replace(THIS_MONTH_MIDNIGHT, 'first day of this month midnight');
  const start = phpStrtotime(text, DateTime.fromJSDate(now, { zone }));
  if (start === null) {
    return null;
  }
  const utc = start.toUTC();
  // `sended.at` is compared as `YYYY-MM-DD HH:MM:SS` text: a five-digit or negative year
  // (`+10000 years`) would not compare as a date.
  return utc.year >= 1 && utc.year <= 9999 ? utc.toFormat(API_DATETIME_FORMAT) : null;
}

/** Whether a startpoint is a relative date PHP understands (post_phone rule 3). */
export function isValidStartpoint(startpoint: string): boolean {
  return startpointToUtc(startpoint, new Date(), 'UTC') !== null;
}
