import { DateTime } from 'luxon';
import { Counter, planDays, sumDays } from './daily-counts';
import { CountKind, quarterHourOf } from '../messages/message-counts';

/*
 * The days of get_daily_stats, summed from day and quarter-hour counters, equal a count of the
 * same messages by their local day, in zones with whole, half and three-quarter hour offsets, DST
 * changes by one hour and by half an hour, and the largest offsets.
 */

const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'America/St_Johns',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];
const KINDS: CountKind[] = ['delivered', 'failed', 'unknown', 'received'];

/** A deterministic spread of instants over the first months of 2024 (both DST changes in March). */
function instants(count: number): string[] {
  const start = Date.UTC(2023, 11, 28);
  let seed = 12345;
  return Array.from({ length: count }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return new Date(start + (seed % (130 * 86_400)) * 1000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
  });
}

function countersOf(ats: string[]): Counter[] {
  const counters = new Map<string, Counter>();
  ats.forEach((at, index) => {
    const kind = KINDS[index % KINDS.length];
    const id_phone = 1 + (index % 3);
    for (const bucket of [at.slice(0, 10), quarterHourOf(at)]) {
      const key = `${bucket}|${id_phone}|${kind}`;
      const counter = counters.get(key) ?? { bucket, id_phone, kind, nb: 0 };
      counter.nb += 1;
      counters.set(key, counter);
    }
  });
  return [...counters.values()];
}

describe('planDays and sumDays', () => {
  const ats = instants(20_000);
  const counters = countersOf(ats);

  it.each(ZONES)('count every message in its local day and phone in %s', (zone) => {
    const start = '2024-01-05 00:00:00';
    const end = '2024-04-20 12:00:00';
    const firstDay = DateTime.fromSQL(start, { zone: 'utc' }).setZone(zone).toISODate()!;
    const lastDay = DateTime.fromSQL(end, { zone: 'utc' }).setZone(zone).toISODate()!;
    const expectedDays = new Map<string, Record<CountKind, number>>();
    const expectedPhones = new Map<number, Record<CountKind, number>>();
    ats.forEach((at, index) => {
      const day = DateTime.fromSQL(at, { zone: 'utc' }).setZone(zone).toISODate()!;
      if (day < firstDay || day > lastDay) {
        return;
      }
      const kind = KINDS[index % KINDS.length];
      const perDay = expectedDays.get(day) ?? { delivered: 0, failed: 0, unknown: 0, received: 0 };
      perDay[kind] += 1;
      expectedDays.set(day, perDay);
      const phone = 1 + (index % 3);
      const perPhone = expectedPhones.get(phone) ?? {
        delivered: 0,
        failed: 0,
        unknown: 0,
        received: 0,
      };
      perPhone[kind] += 1;
      expectedPhones.set(phone, perPhone);
    });

    const plan = planDays(start, end, zone)!;
    const { days, phones } = sumDays(plan, counters);

    expect(days[0].day).toBe(firstDay);
    expect(days[days.length - 1].day).toBe(lastDay);
    for (const { day, ...counts } of days) {
      expect({ day, ...counts }).toEqual({
        day,
        ...(expectedDays.get(day) ?? { delivered: 0, failed: 0, unknown: 0, received: 0 }),
      });
    }
    expect(phones).toEqual(
      [...expectedPhones.entries()].map(([id_phone, counts]) => ({ id_phone, ...counts })),
    );
  });

  it('lists every day once, in order, zeros included, and no phone without messages', () => {
    const { days, phones } = sumDays(
      planDays('2030-01-30 10:00:00', '2030-02-02 00:00:00', 'UTC')!,
      [],
    );

    expect(days).toEqual(
      ['2030-01-30', '2030-01-31', '2030-02-01', '2030-02-02'].map((day) => ({
        day,
        delivered: 0,
        failed: 0,
        unknown: 0,
        received: 0,
      })),
    );
    expect(phones).toEqual([]);
  });

  it('plans at most maxDays days', () => {
    expect(planDays('2024-01-01 00:00:00', '2024-12-31 23:59:59', 'UTC', 366)?.days).toHaveLength(
      366,
    );
    expect(planDays('2024-01-01 00:00:00', '2025-01-01 00:00:00', 'UTC', 366)).toBeNull();
  });

  it('reads a few buckets per day: the UTC day and the quarter-hours around its midnights', () => {
    expect(planDays('2024-01-01 00:00:00', '2024-01-31 23:59:59', 'UTC')!.buckets.size).toBe(31);
    // Paris in winter: 4 quarter-hours at each of the 32 midnights.
    expect(
      planDays('2023-12-31 23:00:00', '2024-01-31 22:59:59', 'Europe/Paris')!.buckets.size,
    ).toBe(31 + 32 * 4);
  });
});
