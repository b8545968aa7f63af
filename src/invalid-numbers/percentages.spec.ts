import { ApiError, ErrorCode } from '../common/errors/api-error';
import { parsePercent, roundedPercentage } from './percentages';

describe('parsePercent', () => {
  it.each([
    ['0', 0],
    ['12', 1200],
    ['12.5', 1250],
    ['.5', 50],
    ['5.', 500],
    ['33.333', 3334],
    ['1.1', 110],
    ['66.670', 6667],
    ['100', 10_000],
    ['100.000', 10_000],
  ])('reads %s exactly, as the smallest admitted hundredths %i', (text, minHundredths) => {
    expect(parsePercent(text, 'percent_failed')).toEqual({ text, minHundredths });
  });

  it.each(['101', '100.001', '-1', 'abc', '', '.', '1e2', ' 5', '5 ', '0x10', '１２'])(
    'refuses %j with INVALID_PARAMETER naming the parameter',
    (text) => {
      expect(() => parsePercent(text, 'percent_failed')).toThrow(
        expect.objectContaining({
          code: ErrorCode.INVALID_PARAMETER,
          detail: `percent_failed must be a number from 0 to 100, got ${JSON.stringify(text)}.`,
        }) as ApiError,
      );
    },
  );

  it('refuses a list or a map', () => {
    expect(() => parsePercent(['1'], 'percent_unknown')).toThrow(
      'percent_unknown must be a number from 0 to 100, got a list.',
    );
    expect(() => parsePercent({ a: '1' }, 'percent_unknown')).toThrow('got an object.');
  });
});

describe('roundedPercentage', () => {
  it.each([
    [1, 3, 33.33],
    [2, 3, 66.67],
    [1, 8, 12.5],
    [1, 32, 3.13],
    [1, 64, 1.56],
    [0, 5, 0],
    [5, 5, 100],
    [1, 20_000, 0.01],
    [1, 20_001, 0],
  ])('%i of %i is %d', (part, total, percentage) => {
    expect(roundedPercentage(part, total)).toBe(percentage);
  });
});
