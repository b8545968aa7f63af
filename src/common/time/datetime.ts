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
 * value is not such a date.
 */
export function parseApiDatetime(value: string, zone: string): string | null {
  const parsed = strictWallTime(value, API_DATETIME_FORMAT, zone);
  return parsed === null ? null : parsed.toUTC().toFormat(API_DATETIME_FORMAT);
}

/**
 * One bound of a period whose bounds are both included, where a date alone (`YYYY-MM-DD`) is
 * accepted: as a `start` it is that day's first second in the service zone, as an `end` its last,
 * so that `start=2026-11-27&end=2026-11-27` covers the whole day as people mean it
 * (docs/api-choices.md#dates-and-time-zone). A full datetime is that instant. Null when the value
 * is neither.
 */
export function parsePeriodBound(
  value: string,
  zone: string,
  bound: 'start' | 'end',
): string | null {
  if (value.length !== API_DATE_FORMAT.length) {
    return parseApiDatetime(value, zone);
  }
  const day = strictWallTime(value, API_DATE_FORMAT, zone);
  if (day === null) {
    return null;
  }
  // endOf('day') is the day's last instant even when a DST change makes it 23 or 25 hours long;
  // formatting to the second drops its milliseconds, as stored datetimes have none.
  const instant = bound === 'start' ? day.startOf('day') : day.endOf('day');
  return instant.toUTC().toFormat(API_DATETIME_FORMAT);
}

function strictWallTime(value: string, format: string, zone: string): DateTime | null {
  const parsed = DateTime.fromFormat(value, format, { zone });
  return parsed.isValid && parsed.toFormat(format) === value ? parsed : null;
}
