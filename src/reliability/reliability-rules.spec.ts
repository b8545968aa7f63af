import { DEFAULT_SETTINGS } from '../users/settings';
import { reachesRate, reliabilityRules, roundedRate } from './reliability-rules';

describe('reliabilityRules', () => {
  it('checks failed rates only, with RaspiSMS’s thresholds, by default', () => {
    expect(reliabilityRules({})).toEqual([
      {
        type: 'failed',
        rateLimit: 10,
        volume: 25,
        periodMinutes: 120,
        graceMinutes: 1,
        webhook: true,
        autoDisable: false,
      },
    ]);
    expect(reliabilityRules(DEFAULT_SETTINGS)).toEqual(reliabilityRules({}));
  });

  it('reads each type’s own settings once it is on', () => {
    expect(
      reliabilityRules({
        phone_reliability_failed: '0',
        phone_reliability_unknown: '1',
        phone_reliability_unknown_rate_limit: '12.5',
        phone_reliability_unknown_volume: '3',
        phone_reliability_unknown_period: '30',
        phone_reliability_unknown_grace_period: '0',
        phone_reliability_unknown_webhook: '0',
        phone_reliability_unknown_auto_disable: '1',
      }),
    ).toEqual([
      {
        type: 'unknown',
        rateLimit: 12.5,
        volume: 3,
        periodMinutes: 30,
        graceMinutes: 0,
        webhook: false,
        autoDisable: true,
      },
    ]);
  });

  it('takes the default of a value that is no number of its range, such as one stored long ago', () => {
    expect(
      reliabilityRules({
        phone_reliability_failed_rate_limit: 'ten',
        phone_reliability_failed_volume: '0',
        phone_reliability_failed_period: '',
        phone_reliability_failed_grace_period: '-3',
      }),
    ).toMatchObject([{ rateLimit: 10, volume: 25, periodMinutes: 120, graceMinutes: 1 }]);
    expect(
      reliabilityRules({
        phone_reliability_failed_period: '99999999999999',
        phone_reliability_failed_grace_period: '1e9',
        phone_reliability_failed_volume: 'Infinity',
      }),
    ).toMatchObject([{ periodMinutes: 120, graceMinutes: 1, volume: 25 }]);
  });
});

describe('reachesRate', () => {
  it.each([
    [2, 20, 10, true],
    [1, 20, 10, false],
    [3, 25, 10, true],
    [2, 25, 10, false],
    [1, 8, 12.5, true],
    [0, 25, 0, true],
    [0, 0, 0, false],
  ])('%d of %d against %d %%: %s', (unreliable, total, rateLimit, expected) => {
    expect(reachesRate(unreliable, total, rateLimit)).toBe(expected);
  });
});

describe('roundedRate', () => {
  it('is a number from 0 to 1 with four decimals at most', () => {
    expect(roundedRate(1, 3)).toBe(0.3333);
    expect(roundedRate(2, 3)).toBe(0.6667);
    expect(roundedRate(25, 25)).toBe(1);
    expect(roundedRate(0, 25)).toBe(0);
  });
});
