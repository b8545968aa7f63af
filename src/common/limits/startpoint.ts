import { strtotime } from 'locutus/php/datetime/strtotime';
import { DateTime } from 'luxon';
import { API_DATETIME_FORMAT } from '../time/datetime';

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
  const wall = DateTime.fromJSDate(now, { zone });
  // The port of strtotime works in the process's own zone (UTC in the service, whatever the
  // machine's in unit tests): it is handed the service zone's wall time as a local time, and its
  // answer, a local wall time again, is read back in the service zone.
  const localNow = new Date(
    wall.year,
    wall.month - 1,
    wall.day,
    wall.hour,
    wall.minute,
    wall.second,
  );
  const seconds = strtotime(text, Math.floor(localNow.getTime() / 1000));
  if (seconds === false || !Number.isFinite(seconds)) {
    return null;
  }
  const local = new Date(seconds * 1000);
  const start = DateTime.fromObject(
    {
      year: local.getFullYear(),
      month: local.getMonth() + 1,
      day: local.getDate(),
      hour: local.getHours(),
      minute: local.getMinutes(),
      second: local.getSeconds(),
    },
    { zone },
  );
  const utc = start.toUTC();
  // `sended.at` is compared as `YYYY-MM-DD HH:MM:SS` text: a five-digit or negative year
  // (`+10000 years`) would not compare as a date.
  return utc.isValid && utc.year >= 1 && utc.year <= 9999
    ? utc.toFormat(API_DATETIME_FORMAT)
    : null;
}

/** Whether a startpoint is a relative date PHP understands (post_phone rule 3). */
export function isValidStartpoint(startpoint: string): boolean {
  return startpointToUtc(startpoint, new Date(), 'UTC') !== null;
}
