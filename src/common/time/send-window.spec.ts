import { MAX_WAIT_DAYS, SendWindow, isTimeZone, nextOpening, parseSendWindow } from './send-window';

function windowOf(text: string): SendWindow {
  const parsed = parseSendWindow(text);
  if ('problem' in parsed) {
    throw new Error(parsed.problem);
  }
  return parsed.window;
}

/** The next opening from `from` (an ISO instant), as an ISO instant in UTC. */
function opening(text: string, from: string, zone: string): string | null {
  return nextOpening(windowOf(text), new Date(from), zone)?.toISOString() ?? null;
}

const DAYS = (...on: number[]) => [0, 1, 2, 3, 4, 5, 6].map((day) => on.includes(day));
const EVERY_DAY = DAYS(0, 1, 2, 3, 4, 5, 6);

describe('parseSendWindow', () => {
  it.each([
    ['08:00-20:00', [{ days: EVERY_DAY, start: 480, end: 1200 }]],
    [
      'mon-fri 08:00-20:00, sat 10:00-18:00',
      [
        { days: DAYS(0, 1, 2, 3, 4), start: 480, end: 1200 },
        { days: DAYS(5), start: 600, end: 1080 },
      ],
    ],
    [
      'mon-fri 08:00-12:00, 14:00-18:00',
      [
        { days: DAYS(0, 1, 2, 3, 4), start: 480, end: 720 },
        { days: DAYS(0, 1, 2, 3, 4), start: 840, end: 1080 },
      ],
    ],
    ['mon,wed 09:00-12:00', [{ days: DAYS(0, 2), start: 540, end: 720 }]],
    ['Fri-Mon 22:00-06:00', [{ days: DAYS(4, 5, 6, 0), start: 1320, end: 360 }]],
    ['sun 20:00 - 24:00', [{ days: DAYS(6), start: 1200, end: 1440 }]],
    ['00:00-24:00', [{ days: EVERY_DAY, start: 0, end: 1440 }]],
  ])('reads %p', (text, ranges) => {
    expect(parseSendWindow(text)).toEqual({ window: { ranges } });
  });

  it.each([
    ['', 'a range is missing between commas'],
    ['08:00-20:00,', 'a range is missing between commas'],
    ['8:00-20:00', '"8:00-20:00" is not a range'],
    ['08:00-25:00', '"08:00-25:00" is not a time of day from 00:00 to 23:59 (24:00 as an end)'],
    ['24:00-06:00', '"24:00-06:00" is not a time of day from 00:00 to 23:59 (24:00 as an end)'],
    ['08:60-09:00', '"08:60-09:00" is not a time of day from 00:00 to 23:59 (24:00 as an end)'],
    ['09:00-09:00', '"09:00-09:00" starts and ends at once; for the whole day write 00:00-24:00'],
    ['mon-fry 08:00-20:00', '"fry" is not a day: write mon, tue, wed, thu, fri, sat or sun'],
    ['mon, tue', 'days at the end are not followed by a range'],
    ['weekdays', '"weekdays" is not a range'],
    [`08:00-09:00${', 10:00-11:00'.repeat(21)}`, 'it is longer than 255 characters'],
  ])('refuses %p: %s', (text, problem) => {
    expect(parseSendWindow(text)).toEqual({ problem });
  });
});

describe('isTimeZone', () => {
  it('knows IANA zones and nothing else', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('America/Santiago')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Europe/Lyon')).toBe(false);
    expect(isTimeZone('+02:00 ')).toBe(false);
  });
});

describe('nextOpening', () => {
  it('is the moment itself when the window is open', () => {
    expect(opening('08:00-20:00', '2026-06-10T10:00:00Z', 'Europe/Paris')).toBe(
      '2026-06-10T10:00:00.000Z',
    );
  });

  it('is the next start of a range, on its days, in the zone', () => {
    // Saturday 2026-06-13, 12:00 in Paris (UTC+2): Monday 08:00.
    expect(opening('mon-fri 08:00-20:00', '2026-06-13T10:00:00Z', 'Europe/Paris')).toBe(
      '2026-06-15T06:00:00.000Z',
    );
    expect(
      opening('mon-fri 08:00-20:00, sat 10:00-18:00', '2026-06-13T06:00:00Z', 'Europe/Paris'),
    ).toBe('2026-06-13T08:00:00.000Z');
    // After the morning range, before the afternoon one.
    expect(
      opening('mon-fri 08:00-12:00, 14:00-18:00', '2026-06-10T10:30:00Z', 'Europe/Paris'),
    ).toBe('2026-06-10T12:00:00.000Z');
  });

  it('crosses midnight: open late, open early the next day, closed between', () => {
    const zone = 'Asia/Tokyo';
    // 23:00 and 05:00 Tokyo time (UTC+9) are open; 07:00 waits until 22:00.
    expect(opening('22:00-06:00', '2026-06-10T14:00:00Z', zone)).toBe('2026-06-10T14:00:00.000Z');
    expect(opening('22:00-06:00', '2026-06-10T20:00:00Z', zone)).toBe('2026-06-10T20:00:00.000Z');
    expect(opening('22:00-06:00', '2026-06-10T22:00:00Z', zone)).toBe('2026-06-11T13:00:00.000Z');
    // A range over midnight belongs to the day it starts: Friday night runs into Saturday.
    expect(opening('fri 22:00-06:00', '2026-06-12T20:00:00Z', zone)).toBe(
      '2026-06-12T20:00:00.000Z',
    );
    expect(opening('fri 22:00-06:00', '2026-06-13T22:00:00Z', zone)).toBe(
      '2026-06-19T13:00:00.000Z',
    );
  });

  it('a weekly window opens within the week; never beyond the days a message may wait', () => {
    // Sunday 2026-06-14, 11:00: the next Sunday.
    expect(opening('sun 10:00-11:00', '2026-06-14T11:00:00Z', 'UTC')).toBe(
      '2026-06-21T10:00:00.000Z',
    );
    expect(MAX_WAIT_DAYS).toBeGreaterThan(7);
  });

  describe('on the days the clocks change, north of the equator (Europe/Paris)', () => {
    const zone = 'Europe/Paris';

    it('spring forward (2026-03-29, 02:00 becomes 03:00): a range starting in the gap opens when the clocks jump', () => {
      expect(opening('02:30-04:00', '2026-03-28T23:00:00Z', zone)).toBe('2026-03-29T01:00:00.000Z');
      // A range ending in the gap closes at the jump: the next opening is the next day.
      expect(opening('01:00-02:30', '2026-03-29T00:59:00Z', zone)).toBe('2026-03-29T00:59:00.000Z');
      expect(opening('01:00-02:30', '2026-03-29T01:00:00Z', zone)).toBe('2026-03-29T23:00:00.000Z');
      // The rest of the day keeps its wall times, at the new offset.
      expect(opening('08:00-20:00', '2026-03-29T01:00:00Z', zone)).toBe('2026-03-29T06:00:00.000Z');
    });

    it('fall back (2026-10-25, 03:00 becomes 02:00): a range in the repeated hour opens once', () => {
      // 02:00-02:45 the first time is 00:00-00:45 UTC; the second time does not open it again.
      expect(opening('02:00-02:45', '2026-10-24T23:30:00Z', zone)).toBe('2026-10-25T00:00:00.000Z');
      expect(opening('02:00-02:45', '2026-10-25T00:45:00Z', zone)).toBe('2026-10-26T01:00:00.000Z');
      // A range over the change lasts its wall-time span plus the repeated hour.
      expect(opening('01:00-04:00', '2026-10-25T02:30:00Z', zone)).toBe('2026-10-25T02:30:00.000Z');
      expect(opening('01:00-04:00', '2026-10-25T03:00:00Z', zone)).toBe('2026-10-26T00:00:00.000Z');
    });
  });

  describe('on the days the clocks change, south of the equator', () => {
    it('Sydney falls back (2026-04-05, 03:00 becomes 02:00): the repeated range opens once', () => {
      const zone = 'Australia/Sydney';
      expect(opening('02:00-02:30', '2026-04-04T14:00:00Z', zone)).toBe('2026-04-04T15:00:00.000Z');
      expect(opening('02:00-02:30', '2026-04-04T15:30:00Z', zone)).toBe('2026-04-05T16:00:00.000Z');
    });

    it('Sydney springs forward (2026-10-04, 02:00 becomes 03:00): a range starting in the gap opens at 03:00', () => {
      expect(opening('02:15-05:00', '2026-10-03T14:00:00Z', 'Australia/Sydney')).toBe(
        '2026-10-03T16:00:00.000Z',
      );
    });

    it('Santiago springs forward at midnight (2026-09-06): the day starts at 01:00', () => {
      const zone = 'America/Santiago';
      // Saturday 23:00 (UTC-4) waits for Sunday's range, which opens at 01:00 (UTC-3).
      expect(opening('sun 00:00-06:00', '2026-09-06T03:00:00Z', zone)).toBe(
        '2026-09-06T04:00:00.000Z',
      );
    });

    it('Santiago falls back at midnight (2026-04-05): 23:00 to 24:00 on Saturday opens once, for two hours', () => {
      const zone = 'America/Santiago';
      // Saturday 2026-04-04 at 24:00 (UTC-3) the clocks go back to 23:00 (UTC-4): the range
      // opens at its first 23:00 and closes at the only midnight.
      expect(opening('sat 23:00-24:00', '2026-04-05T01:00:00Z', zone)).toBe(
        '2026-04-05T02:00:00.000Z',
      );
      expect(opening('sat 23:00-24:00', '2026-04-05T03:30:00Z', zone)).toBe(
        '2026-04-05T03:30:00.000Z',
      );
      expect(opening('sat 23:00-24:00', '2026-04-05T04:00:00Z', zone)).toBe(
        '2026-04-12T03:00:00.000Z',
      );
    });
  });
});
