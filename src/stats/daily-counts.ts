import { DateTime } from 'luxon';
import { API_DATETIME_FORMAT } from '../common/time/datetime';
import { CountKind } from '../messages/message-counts';

/*
 * get_daily_stats reads its days from `message_count` (src/messages/message-counts.ts), whose
 * buckets are UTC days and UTC quarter-hours. A local day of the service zone is the UTC day it
 * overlaps most, plus the quarter-hours of its own that lie outside that UTC day, minus those of
 * the UTC day that lie outside it: around each midnight, as many quarter-hours as the zone's offset
 * holds (none in UTC, 4 in Europe/Paris in winter, at most 48). Each bucket is one index lookup, so
 * a month costs the same few hundred lookups however many messages it holds.
 */

/** One bucket's share in the days of the period: +1 or -1 for each day it counts in. */
export interface BucketShare {
  day: number;
  sign: 1 | -1;
}

/** The local days of a period, and the buckets that sum to each. */
export interface DayPlan {
  /** `YYYY-MM-DD`, from the day holding the start to the day holding the end. */
  days: string[];
  buckets: Map<string, BucketShare[]>;
}

export type KindCounts = Record<CountKind, number>;

export interface DailyCounts {
  days: Array<{ day: string } & KindCounts>;
  phones: Array<{ id_phone: number } & KindCounts>;
}

/** A counter read from `message_count`. */
export interface Counter {
  bucket: string;
  id_phone: number;
  kind: string;
  nb: number;
}

const QUARTER_MS = 15 * 60_000;
const HALF_DAY_MS = 12 * 3_600_000;
const DAY_MS = 24 * 3_600_000;
const KINDS: readonly CountKind[] = ['delivered', 'failed', 'unknown', 'received'];

/**
 * The days of `zone` from the one holding `startUtc` to the one holding `endUtc` (UTC strings);
 * null when they are more than `maxDays`.
 */
export function planDays(
  startUtc: string,
  endUtc: string,
  zone: string,
  maxDays = Infinity,
): DayPlan | null {
  const plan: DayPlan = { days: [], buckets: new Map() };
  const add = (bucket: string, share: BucketShare) => {
    const shares = plan.buckets.get(bucket);
    if (shares) {
      shares.push(share);
    } else {
      plan.buckets.set(bucket, [share]);
    }
  };
  const last = localDayOf(endUtc, zone);
  if (last.diff(localDayOf(startUtc, zone), 'days').days >= maxDays) {
    return null;
  }
  for (let day = localDayOf(startUtc, zone); day <= last; day = day.plus({ days: 1 })) {
    const index = plan.days.push(day.toFormat('yyyy-MM-dd')) - 1;
    // Midnights not on a quarter-hour (local mean times of the 19th century) are rounded down.
    const from = floorQuarter(day.toMillis());
    const to = floorQuarter(day.plus({ days: 1 }).startOf('day').toMillis());
    const utcDay = Math.floor((from + HALF_DAY_MS) / DAY_MS) * DAY_MS;
    add(new Date(utcDay).toISOString().slice(0, 10), { day: index, sign: 1 });
    addQuarters(from, utcDay, index, add);
    addQuarters(to, utcDay + DAY_MS, index, (bucket, share) =>
      add(bucket, { day: share.day, sign: share.sign === 1 ? -1 : 1 }),
    );
  }
  return plan;
}

/** Sums the counters into the plan's days, and into the phones that have messages. */
export function sumDays(plan: DayPlan, counters: readonly Counter[]): DailyCounts {
  const days = plan.days.map((day) => ({ day, ...zeros() }));
  const phones = new Map<number, { id_phone: number } & KindCounts>();
  for (const counter of counters) {
    if (!(KINDS as readonly string[]).includes(counter.kind)) {
      continue;
    }
    const kind = counter.kind as CountKind;
    for (const { day, sign } of plan.buckets.get(counter.bucket) ?? []) {
      days[day][kind] += sign * counter.nb;
      let phone = phones.get(counter.id_phone);
      if (!phone) {
        phone = { id_phone: counter.id_phone, ...zeros() };
        phones.set(counter.id_phone, phone);
      }
      phone[kind] += sign * counter.nb;
    }
  }
  return {
    days,
    phones: [...phones.values()]
      .filter((phone) => KINDS.some((kind) => phone[kind] !== 0))
      .sort((a, b) => a.id_phone - b.id_phone),
  };
}

function zeros(): KindCounts {
  return { delivered: 0, failed: 0, unknown: 0, received: 0 };
}

function localDayOf(utc: string, zone: string): DateTime {
  return DateTime.fromFormat(utc, API_DATETIME_FORMAT, { zone: 'utc' })
    .setZone(zone)
    .startOf('day');
}

function floorQuarter(ms: number): number {
  return Math.floor(ms / QUARTER_MS) * QUARTER_MS;
}

/**
 * The quarter-hours between the local midnight `midnight` and the UTC midnight `utcMidnight`:
 * +1 when the local day starts before the UTC one (they are its own), -1 when after.
 */
function addQuarters(
  midnight: number,
  utcMidnight: number,
  day: number,
  add: (bucket: string, share: BucketShare) => void,
): void {
  const sign = midnight < utcMidnight ? 1 : -1;
  for (
    let quarter = Math.min(midnight, utcMidnight);
    quarter < Math.max(midnight, utcMidnight);
    quarter += QUARTER_MS
  ) {
    add(new Date(quarter).toISOString().slice(0, 16).replace('T', ' '), { day, sign });
  }
}
