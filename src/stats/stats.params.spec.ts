import { ErrorCode } from '../common/errors/api-error';
import { parseStatsParams } from './stats.params';

describe('parseStatsParams', () => {
  it('reads both bounds in the service time zone, a bare date as its midnight', () => {
    expect(
      parseStatsParams({ start: '2024-07-01', end: '2024-07-02 12:00:00' }, 'Europe/Paris'),
    ).toEqual({
      start: '2024-06-30 22:00:00',
      end: '2024-07-02 10:00:00',
      phoneId: undefined,
    });
  });

  it('reads a bare end date as the last second of that day', () => {
    expect(parseStatsParams({ start: '2024-07-01', end: '2024-07-01' }, 'Europe/Paris')).toEqual({
      start: '2024-06-30 22:00:00',
      end: '2024-07-01 21:59:59',
      phoneId: undefined,
    });
  });

  it('reads id_phone without asking whose phone it is (the service does)', () => {
    expect(
      parseStatsParams({ start: '2024-01-01', end: '2024-01-02', id_phone: '7' }, 'UTC').phoneId,
    ).toBe(7);
  });

  it('names every missing bound at once with MISSING_PARAMETER', () => {
    expect(() => parseStatsParams({ start: '' }, 'UTC')).toThrow(
      expect.objectContaining({
        code: ErrorCode.MISSING_PARAMETER,
        message: 'One require parameter is missing : start and end are required.',
      }),
    );
  });

  it('refuses an end before the start, before looking at id_phone', () => {
    expect(() =>
      parseStatsParams({ start: '2024-01-02', end: '2024-01-01', id_phone: 'x' }, 'UTC'),
    ).toThrow('You have specified an invalid parameter : end must not be before start.');
  });

  it('refuses a malformed bound with INVALID_PARAMETER naming it', () => {
    expect(() => parseStatsParams({ start: '2024-01-01', end: '01/02/2024' }, 'UTC')).toThrow(
      'end must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".',
    );
  });
});
