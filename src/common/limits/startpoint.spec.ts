import { isValidStartpoint, MAX_STARTPOINT_LENGTH, startpointToUtc } from './startpoint';

/*
 * Every value the issue lists, at Thursday 2022-08-04 14:30 in the service zone, with PHP's
 * answers except `this month midnight`, which keeps RaspiSMS's documented meaning: the first day of
 * the month at 00:00.
 */

const THURSDAY_UTC = new Date('2022-08-04T14:30:00Z');
// 14:30 in Paris (summer time, UTC+2).
const THURSDAY_PARIS = new Date('2022-08-04T12:30:00Z');

/** [startpoint, expected start as the zone's wall time] at Thursday 2022-08-04 14:30. */
const CASES: Array<[string, string]> = [
  ['today', '2022-08-04 00:00:00'],
  ['midnight', '2022-08-04 00:00:00'],
  ['now', '2022-08-04 14:30:00'],
  ['-24 hours', '2022-08-03 14:30:00'],
  ['this week midnight', '2022-08-01 00:00:00'],
  ['-7 days', '2022-07-28 14:30:00'],
  ['this week midnight -1 week', '2022-07-25 00:00:00'],
  ['-14 days', '2022-07-21 14:30:00'],
  ['this month midnight', '2022-08-01 00:00:00'],
  ['first day of this month', '2022-08-01 14:30:00'],
  ['first day of this month midnight', '2022-08-01 00:00:00'],
  ['-1 month', '2022-07-04 14:30:00'],
  ['-28 days', '2022-07-07 14:30:00'],
  ['-30 days', '2022-07-05 14:30:00'],
  ['-31 days', '2022-07-04 14:30:00'],
  ['yesterday', '2022-08-03 00:00:00'],
];

/** A Paris summer wall time as UTC: two hours earlier. */
function parisToUtc(wall: string): string {
  const utc = new Date(`${wall.replace(' ', 'T')}Z`).getTime() - 2 * 3600 * 1000;
  return new Date(utc).toISOString().slice(0, 19).replace('T', ' ');
}

describe('startpointToUtc', () => {
  describe('in UTC', () => {
    it.each(CASES)('evaluates "%s" to %s', (startpoint, wall) => {
      expect(startpointToUtc(startpoint, THURSDAY_UTC, 'UTC')).toBe(wall);
    });
  });

  describe('in Europe/Paris, where the window starts at the local wall time', () => {
    it.each(CASES)('evaluates "%s" to %s Paris time', (startpoint, wall) => {
      expect(startpointToUtc(startpoint, THURSDAY_PARIS, 'Europe/Paris')).toBe(parisToUtc(wall));
    });
  });

  it('gives today as local midnight in UTC+2 (the previous day at 22:00 UTC)', () => {
    expect(startpointToUtc('today', THURSDAY_PARIS, 'Europe/Paris')).toBe('2022-08-03 22:00:00');
  });

  it('takes the offset of the start, not of now, across a change to summer time', () => {
    // 2022-03-27 12:00 in Paris is summer time (UTC+2); its midnight was still winter time (UTC+1).
    const now = new Date('2022-03-27T10:00:00Z');
    expect(startpointToUtc('today', now, 'Europe/Paris')).toBe('2022-03-26 23:00:00');
  });

  it('keeps the documented meaning of "this month midnight" when more parts follow', () => {
    expect(startpointToUtc('this month midnight -1 month', THURSDAY_UTC, 'UTC')).toBe(
      '2022-07-01 00:00:00',
    );
    expect(startpointToUtc('This Month  Midnight', THURSDAY_UTC, 'UTC')).toBe(
      '2022-08-01 00:00:00',
    );
  });

  it('does not depend on the time zone of the process', () => {
    const processZone = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      expect(startpointToUtc('this week midnight', THURSDAY_PARIS, 'Europe/Paris')).toBe(
        '2022-07-31 22:00:00',
      );
      expect(startpointToUtc('today', THURSDAY_UTC, 'UTC')).toBe('2022-08-04 00:00:00');
    } finally {
      process.env.TZ = processZone;
    }
  });

  it.each(['garbage', 'abc123', '1', 'today at noonish'])('refuses "%s"', (startpoint) => {
    expect(startpointToUtc(startpoint, THURSDAY_UTC, 'UTC')).toBeNull();
  });

  it('refuses a startpoint longer than the column holds', () => {
    const long = `today${' '.repeat(MAX_STARTPOINT_LENGTH)}`;
    expect(startpointToUtc(long, THURSDAY_UTC, 'UTC')).toBeNull();
  });

  it('refuses a start outside the years 1 to 9999', () => {
    expect(startpointToUtc('+10000 years', THURSDAY_UTC, 'UTC')).toBeNull();
  });
});

describe('isValidStartpoint', () => {
  it.each(CASES.map(([startpoint]) => startpoint))('accepts "%s"', (startpoint) => {
    expect(isValidStartpoint(startpoint)).toBe(true);
  });

  it('refuses what PHP cannot parse', () => {
    expect(isValidStartpoint('garbage')).toBe(false);
  });
});
