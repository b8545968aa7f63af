import { DateTime } from 'luxon';

/** The API's datetime format (`Y-m-d H:i:s` in PHP terms). */
export const API_DATETIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const API_DATE_FORMAT = 'yyyy-MM-dd';

/** Now, as the UTC string every datetime column holds. */
export function nowUtc(): string {
  return DateTime.utc().toFormat(API_DATETIME_FORMAT);
}

/** A stored UTC datetime shown in the service time zone. */
export function utcToZone(utc: string | null, zone: string): string | null {
  if (utc === null) {
    return null;
  }
  const parsed = DateTime.fromFormat(utc.slice(0, 19), API_DATETIME_FORMAT, { zone: 'utc' });
  return parsed.isValid ? parsed.setZone(zone).toFormat(API_DATETIME_FORMAT) : utc;
}

/**
 * A `YYYY-MM-DD HH:MM:SS` wall time of the service zone, strictly: it must re-format to itself
 * (DECISIONS §5). Returns the UTC string to store, or null when the value is not such a date.
 * With `allowDateOnly`, `YYYY-MM-DD` means midnight.
 */
export function parseApiDatetime(
  value: string,
  zone: string,
  allowDateOnly = false,
): string | null {
  const format =
    allowDateOnly && value.length === API_DATE_FORMAT.length
      ? API_DATE_FORMAT
      : API_DATETIME_FORMAT;
  const parsed = DateTime.fromFormat(value, format, { zone });
  if (!parsed.isValid || parsed.toFormat(format) !== value) {
    return null;
  }
  return parsed.toUTC().toFormat(API_DATETIME_FORMAT);
}
