import { DateTime } from 'luxon';
import { API_DATETIME_FORMAT } from '../common/time/datetime';
import { SendedStatus } from '../sended/entities/sended.entity';

/*
 * get_sms_status_stats counts sent messages per day of the service time zone. Neither engine can
 * be asked for that day in the same SQL without time-zone tables (MariaDB's CONVERT_TZ needs them,
 * SQLite has no zones at all), and a fixed offset would be wrong across a DST change. So the SQL
 * groups by a UTC bucket that never straddles a local midnight and this module folds the buckets
 * into local days with luxon.
 *
 * A bucket is a UTC hour, cut in two at `split` (`MM:SS`) when the local midnights fall inside
 * their UTC hour: `30:00` for Asia/Kolkata (+05:30, midnight is 18:30 UTC), `15:00` for
 * Asia/Kathmandu (+05:45). An hour has two buckets at most, so a month is at most ~1,500 buckets
 * per phone and status whatever the zone, and the grouping runs on the covering
 * `(id_user, at, id_phone, status)` index alone; the cut is left out of the SQL when not needed,
 * as it costs ~15 % of the query. DST changes that move the offset by whole hours keep the cut,
 * and so does Australia/Lord_Howe's half-hour DST (its other midnights are on whole hours). A
 * period whose midnights sit at two different cuts (a historical change of local mean time) is
 * caught by the fold, and the caller then asks again with `BY_SECOND`.
 */

/** How sent messages are grouped in SQL: by UTC hour, by UTC hour cut at `split`, by second. */
export type Bucketing = { kind: 'hour' } | { kind: 'cut-hour'; split: string } | { kind: 'second' };

/** One group of the bucketed SQL: `bucket` is `YYYY-MM-DD HH` (hour) or the datetime (second). */
export interface BucketCount {
  bucket: string;
  /** For a cut hour, 1 for its part from `split` on, 0 for the part before it; else 1. */
  late: number;
  id_phone: number;
  status: string;
  nb: number;
}

/** A row of get_sms_status_stats (docs/api-choices.md#statistics). */
export interface DayCount {
  at_ymd: string;
  id_phone: number;
  status: string;
  nb: number;
}

/** Length of the `at` prefix that names a bucket, in SQL `SUBSTR(at, 1, n)`. */
export const BUCKET_PREFIX_LENGTH: Record<Bucketing['kind'], number> = {
  hour: 13,
  'cut-hour': 13,
  second: 19,
};

/** The bucketing that always fits: a second is on one day in every zone. */
export const BY_SECOND = { kind: 'second' } as const;

const WHOLE_HOUR = '00:00';
const STATUS_ORDER: readonly SendedStatus[] = ['unknown', 'delivered', 'failed'];

/**
 * The coarsest bucketing that fits the local midnights at both ends of the period (UTC strings).
 * Only a guess for what lies between them: `foldIntoDays` checks every bucket.
 */
export function chooseBucketing(startUtc: string, endUtc: string, zone: string): Bucketing {
  const splits = new Set(
    [startUtc, endUtc].map((utc) => midnightSplit(utc, zone)).filter((s) => s !== WHOLE_HOUR),
  );
  const [split] = splits;
  if (splits.size > 1) {
    return BY_SECOND;
  }
  return split === undefined ? { kind: 'hour' } : { kind: 'cut-hour', split };
}

/**
 * Sums the buckets into days of `zone`, ordered by day, phone, then status in the order unknown,
 * delivered, failed. Null when a bucket holds instants of two local days: the bucketing was too
 * coarse for this period and zone.
 */
export function foldIntoDays(
  rows: BucketCount[],
  bucketing: typeof BY_SECOND,
  zone: string,
): DayCount[];
export function foldIntoDays(
  rows: BucketCount[],
  bucketing: Bucketing,
  zone: string,
): DayCount[] | null;
export function foldIntoDays(
  rows: BucketCount[],
  bucketing: Bucketing,
  zone: string,
): DayCount[] | null {
  const dayOfBucket = new Map<string, string | null>();
  const days = new Map<string, DayCount>();
  for (const row of rows) {
    const bucketKey = `${row.bucket}|${row.late}`;
    let day = dayOfBucket.get(bucketKey);
    if (day === undefined) {
      day = localDayOfBucket(row, bucketing, zone);
      dayOfBucket.set(bucketKey, day);
    }
    if (day === null) {
      return null;
    }
    const key = `${day}|${row.id_phone}|${row.status}`;
    const total = days.get(key);
    if (total) {
      total.nb += row.nb;
    } else {
      days.set(key, { at_ymd: day, id_phone: row.id_phone, status: row.status, nb: row.nb });
    }
  }
  return [...days.values()].sort(
    (a, b) =>
      a.at_ymd.localeCompare(b.at_ymd) ||
      a.id_phone - b.id_phone ||
      statusRank(a.status) - statusRank(b.status) ||
      a.status.localeCompare(b.status),
  );
}

function statusRank(status: string): number {
  const rank = STATUS_ORDER.indexOf(status as SendedStatus);
  return rank === -1 ? STATUS_ORDER.length : rank;
}

/** Where the midnight of the local day holding `utc` falls in its UTC hour, as `MM:SS`. */
function midnightSplit(utc: string, zone: string): string {
  return fromUtc(utc).setZone(zone).startOf('day').toUTC().toFormat('mm:ss');
}

/** The local day of every instant of the bucket, or null when they are not all on one day. */
function localDayOfBucket(row: BucketCount, bucketing: Bucketing, zone: string): string | null {
  const [first, last] = bucketBounds(row, bucketing);
  const day = localDay(first, zone);
  return localDay(last, zone) === day ? day : null;
}

/** The first and last second of the bucket, as UTC datetimes. */
function bucketBounds(row: BucketCount, bucketing: Bucketing): [DateTime, DateTime] {
  switch (bucketing.kind) {
    case 'second': {
      const instant = fromUtc(row.bucket);
      return [instant, instant];
    }
    case 'hour': {
      const hour = fromUtc(`${row.bucket}:00:00`);
      return [hour, hour.plus({ minutes: 59, seconds: 59 })];
    }
    case 'cut-hour': {
      const hour = fromUtc(`${row.bucket}:00:00`);
      const [minutes, seconds] = bucketing.split.split(':').map(Number);
      const split = hour.plus({ minutes, seconds });
      return row.late
        ? [split, hour.plus({ minutes: 59, seconds: 59 })]
        : [hour, split.minus({ seconds: 1 })];
    }
  }
}

function localDay(instant: DateTime, zone: string): string {
  return instant.setZone(zone).toFormat('yyyy-MM-dd');
}

function fromUtc(utc: string): DateTime {
  return DateTime.fromFormat(utc, API_DATETIME_FORMAT, { zone: 'utc' });
}
