import {
  DEFAULT_SETTINGS,
  isSettingOn,
  MAX_PERIOD_MINUTES,
  MAX_VOLUME,
  RELIABILITY_TYPES,
  ReliabilityType,
} from '../users/settings';

/** What one user's settings ask of the check for one type of unreliable sends. */
export interface ReliabilityRule {
  type: ReliabilityType;
  /** The share of unreliable sends, in percent, at or over which a phone is alerted. */
  rateLimit: number;
  /** The fewest sends in the window for their share to be judged. */
  volume: number;
  periodMinutes: number;
  graceMinutes: number;
  webhook: boolean;
  autoDisable: boolean;
}

/**
 * The rules of the types a user's settings turn on (`stored`: their rows; the others take the
 * defaults). A value that is no number of its range (written before the settings were checked)
 * takes its default too, so that one bad row does not stop the check of the user's phones.
 */
export function reliabilityRules(stored: Readonly<Record<string, string>>): ReliabilityRule[] {
  const settings = { ...DEFAULT_SETTINGS, ...stored };
  return RELIABILITY_TYPES.filter((type) => isSettingOn(settings, `phone_reliability_${type}`)).map(
    (type) => {
      const number = (field: string, min: number, max: number): number => {
        const name = `phone_reliability_${type}_${field}`;
        const value = Number((settings[name] ?? '').trim() || NaN);
        return value >= min && value <= max ? value : Number(DEFAULT_SETTINGS[name]);
      };
      return {
        type,
        rateLimit: number('rate_limit', 0, 100),
        volume: Math.ceil(number('volume', 1, MAX_VOLUME)),
        periodMinutes: Math.floor(number('period', 1, MAX_PERIOD_MINUTES)),
        graceMinutes: Math.floor(number('grace_period', 0, MAX_PERIOD_MINUTES)),
        webhook: isSettingOn(settings, `phone_reliability_${type}_webhook`),
        autoDisable: isSettingOn(settings, `phone_reliability_${type}_auto_disable`),
      };
    },
  );
}

/** Whether `unreliable` of `total` sends reach `rateLimit` percent, without float division. */
export function reachesRate(unreliable: number, total: number, rateLimit: number): boolean {
  return total > 0 && unreliable * 100 >= rateLimit * total;
}

/** `unreliable / total` as the event tells it: 0 to 1, rounded to four decimals. */
export function roundedRate(unreliable: number, total: number): number {
  return total > 0 ? Math.round((unreliable / total) * 10_000) / 10_000 : 0;
}
