import { DateTime } from 'luxon';

/** The API's datetime format (`Y-m-d H:i:s` in PHP terms). */
export const API_DATETIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const API_DATE_FORMAT = 'yyyy-MM-dd';

/**
 * Now, as the UTC string every datetime column holds. Every write stamps rows with it: it is cut
 * from the ISO form (`YYYY-MM-DDTHH:MM:SS.sssZ`) rather than formatted by luxon, which costs
 * more than the rest of the stamping.
 */
export function nowUtc(): string {
  return utcString(new Date());
}

/** `date` as the UTC `YYYY-MM-DD HH:MM:SS` string datetime columns hold. */
export function utcString(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** A stored UTC datetime (`YYYY-MM-DD HH:MM:SS`) as a Date. */
export function utcDate(utc: string): Date {
  return new Date(`${utc.slice(0, 10)}T${utc.slice(11, 19)}Z`);
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
 * (docs/api-choices.md#dates-and-time-zone). Returns the UTC string to store, or null when the
 * value is not such a date. With `allowDateOnly`, `YYYY-MM-DD` means midnight.
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
