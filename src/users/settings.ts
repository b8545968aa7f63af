import { isCountryCode } from '../common/phone/phone-number';

/**
 * Settings of a new user (docs/api-choices.md#users-and-settings); values are strings, truthy when
 * a non-zero integer.
 */
export const DEFAULT_SETTINGS: Readonly<Record<string, string>> = {
  mms: '1',
  phone_limit: '0',
  phone_priority: '0',
  templating: '1',
  smsstop: '1',
  smsstop_respond: '1',
  smsstop_response: 'You will no longer receive messages from this number.',
  force_gsm_alphabet: '0',
  webhook: '1',
  default_phone_country: '',
  alert_quota_limit_close: '0.9',
  alert_quota_limit_reached: '1',
  ...reliabilityDefaults('failed', { on: '1', rateLimit: '10' }),
  ...reliabilityDefaults('unknown', { on: '0', rateLimit: '25' }),
};

/** The statuses of a sent entry whose share the reliability check watches (docs/dispatch.md). */
export const RELIABILITY_TYPES = ['failed', 'unknown'] as const;
export type ReliabilityType = (typeof RELIABILITY_TYPES)[number];

/**
 * RaspiSMS's defaults for one type: a share in percent of at least 25 entries sent over the last
 * two hours, the last minute left out for the receipts still on their way. Its `_email`
 * variants are left out: smsgw sends no e-mail.
 */
function reliabilityDefaults(
  type: ReliabilityType,
  { on, rateLimit }: { on: string; rateLimit: string },
): Record<string, string> {
  return {
    [`phone_reliability_${type}`]: on,
    [`phone_reliability_${type}_rate_limit`]: rateLimit,
    [`phone_reliability_${type}_volume`]: '25',
    [`phone_reliability_${type}_period`]: '120',
    [`phone_reliability_${type}_grace_period`]: '1',
    [`phone_reliability_${type}_webhook`]: '1',
    [`phone_reliability_${type}_auto_disable`]: '0',
  };
}

/** PHP's `(int) value` truthiness, as RaspiSMS tests its settings: `"1"`, `"2"` on; `""`, `"0"`, `"x"` off. */
export function isSettingOn(settings: Readonly<Record<string, string>>, name: string): boolean {
  const value = parseInt(settings[name] ?? '', 10);
  return !Number.isNaN(value) && value !== 0;
}

/** The settings whose value is a flag, `0` or `1`. */
const FLAGS: readonly string[] = [
  'mms',
  'phone_limit',
  'phone_priority',
  'templating',
  'smsstop',
  'smsstop_respond',
  'force_gsm_alphabet',
  'webhook',
  'alert_quota_limit_reached',
  ...RELIABILITY_TYPES.flatMap((type) => [
    `phone_reliability_${type}`,
    `phone_reliability_${type}_webhook`,
    `phone_reliability_${type}_auto_disable`,
  ]),
];

/** A year of minutes: longer reliability periods would only be typing mistakes. */
export const MAX_PERIOD_MINUTES = 525_600;
export const MAX_VOLUME = 1_000_000;

/** The longest value: `smsstop_response` is the text of one message, the column holds no more. */
const MAX_VALUE_LENGTH = 1000;

/** A setting's value as it is stored, or why it cannot be. */
export type CheckedSetting = { value: string } | { reason: string };

/**
 * The one check of a setting's name and value, for the API and the CLI alike
 * (docs/api.md#post_setting): the name must be a known setting; flags take `0` or `1`;
 * `default_phone_country` an ISO 3166 alpha-2 code that numbers can be read for, in any case,
 * stored lowercase so that a country has one spelling (`fr`), or empty; `smsstop_response` 1 to 1000 characters,
 * not only blanks (a blank reply is never sent); the reliability thresholds numbers in their
 * ranges (`checkSettingsTogether` then compares each grace period with its period).
 */
export function checkSetting(name: string, value: unknown): CheckedSetting {
  if (!Object.prototype.hasOwnProperty.call(DEFAULT_SETTINGS, name)) {
    return {
      reason:
        `${JSON.stringify(name.length > 50 ? `${name.slice(0, 50)}…` : name)} is not a setting ` +
        `name: one of ${Object.keys(DEFAULT_SETTINGS).join(', ')}.`,
    };
  }
  if (typeof value !== 'string') {
    return { reason: `${name} must be a text.` };
  }
  if (FLAGS.includes(name)) {
    return value === '0' || value === '1' ? { value } : { reason: `${name} must be 0 or 1.` };
  }
  const reliability =
    /^phone_reliability_(?:failed|unknown)_(rate_limit|volume|period|grace_period)$/.exec(name);
  if (reliability) {
    return checkReliabilityNumber(name, reliability[1], value);
  }
  switch (name) {
    case 'default_phone_country':
      return value === '' || isCountryCode(value)
        ? { value: value.toLowerCase() }
        : {
            reason:
              'default_phone_country must be an ISO 3166 alpha-2 country code (such as fr), ' +
              'or empty for none.',
          };
    case 'alert_quota_limit_close':
      // A share of the quota, as RaspiSMS stores it; 0 turns the alert off.
      return /^(?:0(?:\.\d{1,4})?|1(?:\.0{1,4})?)$/.test(value)
        ? { value }
        : {
            reason:
              'alert_quota_limit_close must be a decimal from 0 to 1, such as 0.9 (0: no alert).',
          };
    case 'smsstop_response':
      return value.trim() !== '' && [...value].length <= MAX_VALUE_LENGTH
        ? { value }
        : {
            reason: `smsstop_response must be 1 to ${MAX_VALUE_LENGTH} characters, not only blanks.`,
          };
    default:
      // A setting without a rule of its own takes any text its column holds.
      return [...value].length <= MAX_VALUE_LENGTH
        ? { value }
        : { reason: `${name} must be at most ${MAX_VALUE_LENGTH} characters.` };
  }
}

/** Stored without leading zeros, so that `010` and `10` read alike everywhere. */
function checkReliabilityNumber(name: string, field: string, value: string): CheckedSetting {
  const whole = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  switch (field) {
    case 'rate_limit': {
      const percent = /^\d{1,3}(?:\.\d{1,2})?$/.test(value) ? Number(value) : NaN;
      return percent <= 100
        ? { value: String(percent) }
        : {
            reason:
              `${name} must be a percentage from 0 to 100 (at most two decimals, such as 10 or ` +
              '12.5): the share of the messages sent that raises an alert.',
          };
    }
    case 'volume':
      return whole >= 1 && whole <= MAX_VOLUME
        ? { value: String(whole) }
        : {
            reason:
              `${name} must be a whole number from 1 to ${MAX_VOLUME}: the fewest messages ` +
              'sent in the period for a rate to be judged.',
          };
    case 'period':
      return whole >= 1 && whole <= MAX_PERIOD_MINUTES
        ? { value: String(whole) }
        : {
            reason: `${name} must be a whole number of minutes from 1 to ${MAX_PERIOD_MINUTES} (a year).`,
          };
    default:
      return whole >= 0 && whole < MAX_PERIOD_MINUTES
        ? { value: String(whole) }
        : {
            reason:
              `${name} must be a whole number of minutes from 0 to ${MAX_PERIOD_MINUTES - 1}, ` +
              'less than the period.',
          };
  }
}

/**
 * What `checkSetting` cannot see alone: with `changes` applied to `settings`, each reliability
 * grace period must stay shorter than its period, or the check would look at no message. Only
 * the pairs `changes` touches are checked, so that a pair stored otherwise long ago does not
 * refuse an unrelated change. Why not, or null.
 */
export function checkSettingsTogether(
  settings: Readonly<Record<string, string>>,
  changes: Readonly<Record<string, string>>,
): string | null {
  const merged = { ...DEFAULT_SETTINGS, ...settings, ...changes };
  for (const type of RELIABILITY_TYPES) {
    const period = `phone_reliability_${type}_period`;
    const grace = `phone_reliability_${type}_grace_period`;
    if (!(period in changes) && !(grace in changes)) {
      continue;
    }
    if (Number(merged[grace]) >= Number(merged[period])) {
      return (
        `${grace} (${merged[grace]}) must be less than ${period} (${merged[period]}): the ` +
        'check looks at the messages sent between the period and the grace period ago.'
      );
    }
  }
  return null;
}
