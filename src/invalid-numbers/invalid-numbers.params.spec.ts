import { ErrorCode } from '../common/errors/api-error';
import { parseInvalidNumbersParams } from './invalid-numbers.params';

describe('parseInvalidNumbersParams', () => {
  it('reads the thresholds exactly and the page, 0 when none is given', () => {
    expect(
      parseInvalidNumbersParams({ volume: '5', percent_failed: '12.345', percent_unknown: '0' }),
    ).toEqual({
      volume: 5,
      percentFailed: { text: '12.345', minHundredths: 1235 },
      percentUnknown: { text: '0', minHundredths: 0 },
      page: 0,
    });
  });

  it('names every missing threshold at once with MISSING_PARAMETER, empty counting as missing', () => {
    expect(() => parseInvalidNumbersParams({ volume: '', percent_unknown: '1' })).toThrow(
      expect.objectContaining({
        code: ErrorCode.MISSING_PARAMETER,
        message: 'One require parameter is missing : volume and percent_failed are required.',
      }),
    );
  });

  it('checks volume, then percent_failed, then percent_unknown, then page', () => {
    const all = { volume: 'x', percent_failed: '101', percent_unknown: 'y', page: '-1' };

    expect(() => parseInvalidNumbersParams(all)).toThrow('volume must be a non-negative integer');
    expect(() => parseInvalidNumbersParams({ ...all, volume: '1' })).toThrow(
      'percent_failed must be a number from 0 to 100, got "101".',
    );
    expect(() => parseInvalidNumbersParams({ ...all, volume: '1', percent_failed: '1' })).toThrow(
      'percent_unknown must be a number from 0 to 100',
    );
    expect(() =>
      parseInvalidNumbersParams({
        volume: '1',
        percent_failed: '1',
        percent_unknown: '1',
        page: '-1',
      }),
    ).toThrow('page must be a non-negative integer');
  });
});
