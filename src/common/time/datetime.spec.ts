import {
  API_DATETIME_FORMAT,
  nowUtc,
  parseApiDatetime,
  parsePeriodBound,
  utcToZone,
} from './datetime';

describe('parseApiDatetime (strict `YYYY-MM-DD HH:MM:SS` in the service zone)', () => {
  it('keeps a valid UTC wall time as it is', () => {
    expect(parseApiDatetime('2024-01-01 10:00:00', 'UTC')).toBe('2024-01-01 10:00:00');
    expect(parseApiDatetime('2024-02-29 23:59:59', 'UTC')).toBe('2024-02-29 23:59:59');
  });

  it('converts a wall time of the service zone to UTC, in winter and in summer', () => {
    expect(parseApiDatetime('2024-01-01 10:00:00', 'Europe/Paris')).toBe('2024-01-01 09:00:00');
    expect(parseApiDatetime('2024-07-01 10:00:00', 'Europe/Paris')).toBe('2024-07-01 08:00:00');
    expect(parseApiDatetime('2024-01-01 00:30:00', 'Europe/Paris')).toBe('2023-12-31 23:30:00');
    expect(parseApiDatetime('2024-01-01 10:00:00', 'America/New_York')).toBe('2024-01-01 15:00:00');
  });

  it.each([
    ['2024-02-30 10:00:00', 'a day the month does not have'],
    ['2023-02-29 10:00:00', 'February 29th of a common year'],
    ['2024-13-01 10:00:00', 'month 13'],
    ['2024-01-01 24:00:00', 'hour 24'],
    ['2024-01-01 10:60:00', 'minute 60'],
    ['2024-01-01 10:00:60', 'second 60'],
    ['2024-1-01 10:00:00', 'a month without its leading zero'],
    ['2024-01-1 10:00:00', 'a day without its leading zero'],
    ['2024-01-01 1:00:00', 'an hour without its leading zero'],
    ['2024-01-01T10:00:00', 'ISO 8601 with a T'],
    ['2024-01-01 10:00:00Z', 'a zone suffix'],
    ['2024-01-01 10:00:00.000', 'milliseconds'],
    ['2024-01-01 10:00', 'no seconds'],
    [' 2024-01-01 10:00:00', 'a leading space'],
    ['2024-01-01  10:00:00', 'two spaces'],
    ['2024/01/01 10:00:00', 'slashes'],
    ['２０２４-01-01 10:00:00', 'full-width digits'],
    ['2024-01-01', 'a date alone'],
    ['', 'the empty string'],
    ['now', 'a relative date'],
  ])('refuses %p (%s)', (value) => {
    expect(parseApiDatetime(value, 'UTC')).toBeNull();
  });

  it('refuses a wall time the service zone skips at the spring change', () => {
    expect(parseApiDatetime('2024-03-31 02:30:00', 'Europe/Paris')).toBeNull();
    expect(parseApiDatetime('2024-03-31 02:30:00', 'UTC')).toBe('2024-03-31 02:30:00');
  });
});

describe('parsePeriodBound (a bound of an inclusive period, a date alone accepted)', () => {
  it('reads a date alone as a start at its first second, as an end at its last', () => {
    expect(parsePeriodBound('2026-11-27', 'UTC', 'start')).toBe('2026-11-27 00:00:00');
    expect(parsePeriodBound('2026-11-27', 'UTC', 'end')).toBe('2026-11-27 23:59:59');
  });

  it('reads the day in the service zone, in winter and in summer', () => {
    expect(parsePeriodBound('2024-01-01', 'Europe/Paris', 'start')).toBe('2023-12-31 23:00:00');
    expect(parsePeriodBound('2024-01-01', 'Europe/Paris', 'end')).toBe('2024-01-01 22:59:59');
    expect(parsePeriodBound('2024-07-01', 'Europe/Paris', 'end')).toBe('2024-07-01 21:59:59');
  });

  it('ends a 23- or 25-hour day at its last second, and starts one without a midnight at its first', () => {
    expect(parsePeriodBound('2024-03-31', 'Europe/Paris', 'end')).toBe('2024-03-31 21:59:59');
    expect(parsePeriodBound('2024-10-27', 'Europe/Paris', 'end')).toBe('2024-10-27 22:59:59');
    // Santiago's clocks went from 00:00 to 01:00 on 2024-09-08.
    expect(parsePeriodBound('2024-09-08', 'America/Santiago', 'start')).toBe('2024-09-08 04:00:00');
  });

  it('keeps a full datetime as that instant, for either bound', () => {
    expect(parsePeriodBound('2026-11-27 00:00:00', 'UTC', 'end')).toBe('2026-11-27 00:00:00');
    expect(parsePeriodBound('2024-01-01 10:00:00', 'Europe/Paris', 'start')).toBe(
      '2024-01-01 09:00:00',
    );
  });

  it.each(['2024-02-30', '2024-1-1', '2024-01-1', '2024-01-01 10:00', 'yesterday', ''])(
    'refuses %p',
    (value) => {
      expect(parsePeriodBound(value, 'UTC', 'start')).toBeNull();
      expect(parsePeriodBound(value, 'UTC', 'end')).toBeNull();
    },
  );
});

describe('utcToZone', () => {
  it('shows a stored UTC datetime in the service zone', () => {
    expect(utcToZone('2024-01-01 09:00:00', 'Europe/Paris')).toBe('2024-01-01 10:00:00');
    expect(utcToZone('2024-07-01 08:00:00', 'Europe/Paris')).toBe('2024-07-01 10:00:00');
    expect(utcToZone('2024-01-01 00:30:00', 'America/New_York')).toBe('2023-12-31 19:30:00');
  });

  it('leaves UTC datetimes as they are in the UTC zone', () => {
    expect(utcToZone('2024-01-01 09:00:00', 'UTC')).toBe('2024-01-01 09:00:00');
  });

  it('is the inverse of parseApiDatetime', () => {
    const stored = parseApiDatetime('2024-10-15 18:45:30', 'Asia/Kolkata');

    expect(stored).toBe('2024-10-15 13:15:30');
    expect(utcToZone(stored, 'Asia/Kolkata')).toBe('2024-10-15 18:45:30');
  });

  it('ignores fractional seconds a driver may append', () => {
    expect(utcToZone('2024-01-01 09:00:00.000000', 'Europe/Paris')).toBe('2024-01-01 10:00:00');
  });

  it('keeps null as null', () => {
    expect(utcToZone(null, 'Europe/Paris')).toBeNull();
  });

  it('returns a value it cannot read unchanged rather than failing', () => {
    expect(utcToZone('not a date', 'Europe/Paris')).toBe('not a date');
  });
});

describe('nowUtc', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('is the current instant in UTC, in the API format', () => {
    jest.useFakeTimers({ now: new Date('2024-05-06T07:08:09.999Z') });

    expect(nowUtc()).toBe('2024-05-06 07:08:09');
    expect(API_DATETIME_FORMAT).toBe('yyyy-MM-dd HH:mm:ss');
  });

  it('gives an instant written with an offset in UTC, leading zeros kept', () => {
    jest.useFakeTimers({ now: new Date('2025-01-01T00:30:00+02:00') });

    expect(nowUtc()).toBe('2024-12-31 22:30:00');
  });
});
