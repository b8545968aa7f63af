import { ErrorCode } from '../common/errors/api-error';
import { parseUsageParams } from './usage.params';

describe('parseUsageParams', () => {
  it('reads the bounds in the service time zone as UTC, and an absent one as no bound', () => {
    expect(parseUsageParams({ start: '2024-07-01 02:00:00' }, 'Europe/Paris')).toEqual({
      period: { start: '2024-07-01 00:00:00', end: undefined },
      tag: undefined,
    });
    expect(parseUsageParams({ start: '', end: '2024-01-01 00:00:00' }, 'UTC').period).toEqual({
      start: undefined,
      end: '2024-01-01 00:00:00',
    });
  });

  it('keeps the tag as the LIKE pattern it is, and an empty tag as no filter', () => {
    expect(parseUsageParams({ tag: 'promo_%' }, 'UTC').tag).toBe('promo_%');
    expect(parseUsageParams({ tag: '' }, 'UTC').tag).toBeUndefined();
  });

  it('refuses a bound that is not "YYYY-MM-DD HH:MM:SS" with INVALID_PARAMETER, start first', () => {
    expect(() => parseUsageParams({ start: '2024-01-01', end: 'yesterday' }, 'UTC')).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : start must be a date of format ' +
          '"YYYY-MM-DD HH:MM:SS".',
      }),
    );
  });

  it('refuses a tag that is not text with INVALID_PARAMETER', () => {
    expect(() => parseUsageParams({ tag: ['a'] }, 'UTC')).toThrow('tag must be a string.');
  });
});
