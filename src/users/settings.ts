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
};

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
];

/** The longest value: `smsstop_response` is the text of one message, the column holds no more. */
const MAX_VALUE_LENGTH = 1000;

/** A setting's value as it is stored, or why it cannot be. */
export type CheckedSetting = { value: string } | { reason: string };

/**
 * The one check of a setting's name and value, for the API and the CLI alike
 * (docs/api.md#post_setting): the name must be a known setting; flags take `0` or `1`;
 * `default_phone_country` an ISO 3166 alpha-2 code that numbers can be read for, in any case,
 * stored lowercase so that a country has one spelling (`fr`), or empty; `smsstop_response` 1 to 1000 characters,
 * not only blanks (a blank reply is never sent).
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
