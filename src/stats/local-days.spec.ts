import { BY_SECOND, BucketCount, Bucketing, chooseBucketing, foldIntoDays } from './local-days';

/** Buckets the way the repository's SQL does, from UTC datetimes of single messages. */
function bucketsOf(
  messages: Array<{ at: string; id_phone?: number; status?: string }>,
  bucketing: Bucketing,
): BucketCount[] {
  const split = bucketing.kind === 'cut-hour' ? bucketing.split : '00:00';
  const length = bucketing.kind === 'second' ? 19 : 13;
  const groups = new Map<string, BucketCount>();
  for (const { at, id_phone = 1, status = 'delivered' } of messages) {
    const row = {
      bucket: at.slice(0, length),
      late: at.slice(14, 19) >= split ? 1 : 0,
      id_phone,
      status,
      nb: 1,
    };
    const key = `${row.bucket}|${row.late}|${id_phone}|${status}`;
    const found = groups.get(key);
    if (found) {
      found.nb += 1;
    } else {
      groups.set(key, row);
    }
  }
  return [...groups.values()];
}

function daysOf(rows: Array<{ at_ymd: string; nb: number }> | null): Array<[string, number]> {
  if (rows === null) {
    throw new Error('the bucketing straddled a day');
  }
  return rows.map((row) => [row.at_ymd, row.nb]);
}

describe('chooseBucketing', () => {
  it('cuts nothing for zones whose midnights are at whole UTC hours, across DST changes', () => {
    expect(chooseBucketing('2024-03-01 00:00:00', '2024-04-30 00:00:00', 'Europe/Paris')).toEqual({
      kind: 'hour',
    });
    expect(chooseBucketing('2024-01-01 00:00:00', '2024-01-31 00:00:00', 'UTC')).toEqual({
      kind: 'hour',
    });
  });

  it('cuts each UTC hour where the local midnights fall for half- and quarter-hour offsets', () => {
    expect(chooseBucketing('2024-05-01 00:00:00', '2024-05-31 00:00:00', 'Asia/Kolkata')).toEqual({
      kind: 'cut-hour',
      split: '30:00',
    });
    expect(chooseBucketing('2024-05-01 00:00:00', '2024-05-31 00:00:00', 'Asia/Kathmandu')).toEqual(
      { kind: 'cut-hour', split: '15:00' },
    );
    expect(
      chooseBucketing('2024-05-01 00:00:00', '2024-05-31 00:00:00', 'America/St_Johns'),
    ).toEqual({ kind: 'cut-hour', split: '30:00' });
  });

  it('keeps the cut when a half-hour DST puts the other midnights at whole hours (Lord Howe)', () => {
    expect(
      chooseBucketing('2024-03-01 00:00:00', '2024-05-01 00:00:00', 'Australia/Lord_Howe'),
    ).toEqual({ kind: 'cut-hour', split: '30:00' });
  });

  it('groups by second when the two ends put midnight at two different cuts', () => {
    expect(chooseBucketing('1900-01-01 00:00:00', '1950-01-01 00:00:00', 'Asia/Kolkata')).toEqual(
      BY_SECOND,
    );
  });
});

describe('foldIntoDays', () => {
  it('sums hour buckets into days of a whole-hour zone, on both sides of DST changes', () => {
    const zone = 'Europe/Paris';
    const bucketing = chooseBucketing('2024-03-30 00:00:00', '2024-10-28 00:00:00', zone);
    const messages = [
      '2024-03-30 22:59:59', // 23:59:59 +01:00 on the 30th
      '2024-03-30 23:00:00', // 00:00 on the 31st, the day clocks go forward
      '2024-03-31 21:59:59', // 23:59:59 +02:00 on the 31st
      '2024-03-31 22:00:00', // 1st of April
      '2024-10-26 21:59:59', // 23:59:59 +02:00 on the 26th
      '2024-10-26 22:00:00', // the 27th, the day clocks go back
      '2024-10-27 22:59:59', // 23:59:59 +01:00, still the 27th
      '2024-10-27 23:00:00', // the 28th
    ].map((at) => ({ at }));

    expect(daysOf(foldIntoDays(bucketsOf(messages, bucketing), bucketing, zone))).toEqual([
      ['2024-03-30', 1],
      ['2024-03-31', 2],
      ['2024-04-01', 1],
      ['2024-10-26', 1],
      ['2024-10-27', 2],
      ['2024-10-28', 1],
    ]);
  });

  it.each([
    ['Asia/Kolkata', '2024-05-01 18:29:59', '2024-05-01 18:30:00'],
    ['Asia/Kathmandu', '2024-05-01 18:14:59', '2024-05-01 18:15:00'],
    ['America/St_Johns', '2024-07-02 02:29:59', '2024-07-02 02:30:00'],
  ])('puts the last second before midnight and midnight of %s on their days', (zone, a, b) => {
    const bucketing = chooseBucketing('2024-05-01 00:00:00', '2024-07-31 00:00:00', zone);
    const messages = [{ at: a }, { at: a.slice(0, 14) + '00:00' }, { at: b }];

    const days = daysOf(foldIntoDays(bucketsOf(messages, bucketing), bucketing, zone));

    expect(days).toHaveLength(2);
    expect(days[0][1]).toBe(2);
    expect(days[1][1]).toBe(1);
    expect(days[1][0] > days[0][0]).toBe(true);
  });

  it('refuses buckets that straddle a local midnight, and folds by second instead', () => {
    // America/Guyana: −04:00 in 1914 and −03:00 in 1976, but −03:45 in between.
    const zone = 'America/Guyana';
    const bucketing = chooseBucketing('1914-06-01 00:00:00', '1976-06-01 00:00:00', zone);
    expect(bucketing).toEqual({ kind: 'hour' });
    const messages = [{ at: '1950-06-02 03:44:59' }, { at: '1950-06-02 03:45:00' }];

    expect(foldIntoDays(bucketsOf(messages, bucketing), bucketing, zone)).toBeNull();
    expect(daysOf(foldIntoDays(bucketsOf(messages, BY_SECOND), BY_SECOND, zone))).toEqual([
      ['1950-06-01', 1],
      ['1950-06-02', 1],
    ]);
  });

  it('orders by day, phone, then status unknown, delivered, failed', () => {
    const bucketing = { kind: 'hour' } as const;
    const messages = [
      { at: '2024-01-02 10:00:00', id_phone: 1, status: 'failed' },
      { at: '2024-01-01 10:00:00', id_phone: 2, status: 'delivered' },
      { at: '2024-01-01 11:00:00', id_phone: 1, status: 'failed' },
      { at: '2024-01-01 12:00:00', id_phone: 1, status: 'delivered' },
      { at: '2024-01-01 13:00:00', id_phone: 1, status: 'unknown' },
      { at: '2024-01-01 14:00:00', id_phone: 1, status: 'unknown' },
    ];

    expect(foldIntoDays(bucketsOf(messages, bucketing), bucketing, 'UTC')).toEqual([
      { at_ymd: '2024-01-01', id_phone: 1, status: 'unknown', nb: 2 },
      { at_ymd: '2024-01-01', id_phone: 1, status: 'delivered', nb: 1 },
      { at_ymd: '2024-01-01', id_phone: 1, status: 'failed', nb: 1 },
      { at_ymd: '2024-01-01', id_phone: 2, status: 'delivered', nb: 1 },
      { at_ymd: '2024-01-02', id_phone: 1, status: 'failed', nb: 1 },
    ]);
  });
});
