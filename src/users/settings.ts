import { countryCodes } from '../common/phone/phone-number';
import { phpIntval } from '../text/php-values';
import {
  MAX_WINDOW_CHARACTERS,
  WINDOW_SYNTAX,
  canonicalTimeZone,
  parseSendWindow,
} from '../common/time/send-window';

/** The statuses of a sent entry whose share the reliability check watches (docs/dispatch.md). */
export const RELIABILITY_TYPES = ['failed', 'unknown'] as const;
export type ReliabilityType = (typeof RELIABILITY_TYPES)[number];

/** A year of minutes: longer reliability periods would only be typing mistakes. */
export const MAX_PERIOD_MINUTES = 525_600;
export const MAX_VOLUME = 1_000_000;

/** The longest value: `smsstop_response` is the text of one message, the column holds no more. */
const MAX_VALUE_LENGTH = 1000;

/** The most digits before the point of a number setting: no range goes past a million. */
const MAX_INTEGER_DIGITS = 7;

/**
 * How a setting's value is read: a flag is `0` or `1`; a choice one of `choices`; a number a
 * decimal in `[minimum, maximum]` with at most `decimals` digits after the point; a text from
 * `min_length` to `max_length` characters.
 */
export type SettingType = 'flag' | 'choice' | 'number' | 'text';

/**
 * One setting: its meaning and the values it takes. The API's and the CLI's check, the OpenAPI
 * document and get_setting_definitions (the console's form) all read these, so a rule is written
 * once.
 */
export interface SettingDefinition {
  name: string;
  /** A short name for a form's label. */
  label: string;
  /** What the setting changes. */
  description: string;
  /** The settings that go together, under one heading. */
  group: string;
  type: SettingType;
  default: string;
  /** The allowed values in words, as the refusal of a bad one says them. */
  allowed: string;
  minimum: number | null;
  maximum: number | null;
  decimals: number | null;
  min_length: number | null;
  max_length: number | null;
  choices: Array<{ value: string; label: string }> | null;
}

type Shape = Pick<
  SettingDefinition,
  'type' | 'allowed' | 'minimum' | 'maximum' | 'decimals' | 'min_length' | 'max_length' | 'choices'
>;
const NONE: Omit<Shape, 'type' | 'allowed'> = {
  minimum: null,
  maximum: null,
  decimals: null,
  min_length: null,
  max_length: null,
  choices: null,
};
const FLAG: Shape = { ...NONE, type: 'flag', allowed: '0 or 1' };

function setting(
  name: string,
  group: string,
  label: string,
  description: string,
  defaultValue: string,
  shape: Shape,
): SettingDefinition {
  return { name, label, description, group, default: defaultValue, ...shape };
}

function numberShape(minimum: number, maximum: number, decimals: number, allowed: string): Shape {
  return { ...NONE, type: 'number', allowed, minimum, maximum, decimals };
}

/**
 * The countries phone numbers can be read for, by their lowercase ISO 3166 alpha-2 code and
 * English name, or none.
 */
function countryChoices(): Array<{ value: string; label: string }> {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  return [
    { value: '', label: 'None: numbers must be international' },
    ...countryCodes()
      .map((code) => ({
        value: code.toLowerCase(),
        label: `${names.of(code) ?? code} (${code.toLowerCase()})`,
      }))
      .sort((a, b) => a.label.localeCompare(b.label, 'en')),
  ];
}

/**
 * RaspiSMS's reliability defaults for one type: a share in percent of at least 25 entries sent
 * over the last two hours, the last minute left out for the receipts still on their way. Its
 * `_email` variants are left out: smsgw sends no e-mail.
 */
function reliabilitySettings(
  type: ReliabilityType,
  { on, rateLimit }: { on: string; rateLimit: string },
): SettingDefinition[] {
  const name = `phone_reliability_${type}`;
  const group =
    type === 'failed'
      ? 'Phone reliability: failed messages'
      : 'Phone reliability: messages of unknown status';
  const share = type === 'failed' ? 'failed' : 'left without a delivery status';
  return [
    setting(
      name,
      group,
      'Check this rate',
      `Each phone's share of messages ${share} is checked, and an alert is raised when it passes the rate limit.`,
      on,
      FLAG,
    ),
    setting(
      `${name}_rate_limit`,
      group,
      'Rate limit (%)',
      `The share of the messages sent, in percent, ${share} that raises an alert.`,
      rateLimit,
      numberShape(
        0,
        100,
        2,
        'a percentage from 0 to 100 (at most two decimals, such as 10 or 12.5): the share of ' +
          'the messages sent that raises an alert',
      ),
    ),
    setting(
      `${name}_volume`,
      group,
      'Fewest messages',
      'The fewest messages sent in the period for a rate to be judged.',
      '25',
      numberShape(
        1,
        MAX_VOLUME,
        0,
        `a whole number from 1 to ${MAX_VOLUME}: the fewest messages sent in the period for a ` +
          'rate to be judged',
      ),
    ),
    setting(
      `${name}_period`,
      group,
      'Period (minutes)',
      'How many minutes back the check looks at the messages sent.',
      '120',
      numberShape(
        1,
        MAX_PERIOD_MINUTES,
        0,
        `a whole number of minutes from 1 to ${MAX_PERIOD_MINUTES} (a year)`,
      ),
    ),
    setting(
      `${name}_grace_period`,
      group,
      'Grace period (minutes)',
      'The latest minutes left out of the check, for the delivery receipts still on their way; less than the period.',
      '1',
      numberShape(
        0,
        MAX_PERIOD_MINUTES - 1,
        0,
        `a whole number of minutes from 0 to ${MAX_PERIOD_MINUTES - 1}, less than the period`,
      ),
    ),
    setting(
      `${name}_webhook`,
      group,
      'Send a webhook event',
      'An alert sends a phone_reliability event to the webhooks.',
      '1',
      FLAG,
    ),
    setting(
      `${name}_auto_disable`,
      group,
      'Disable the phone',
      'An alert disables the phone, so that the dispatch stops choosing it.',
      '0',
      FLAG,
    ),
  ];
}

/** The IANA time zones, or none for the service's. */
function timeZoneChoices(): Array<{ value: string; label: string }> {
  return [
    { value: '', label: "The service's time zone" },
    // Intl lists only zones of places.
    { value: 'UTC', label: 'UTC' },
    ...Intl.supportedValuesOf('timeZone').map((zone) => ({ value: zone, label: zone })),
  ];
}

const SENDING = 'Sending';
const STOP = 'STOP replies';
const EVENTS = 'Webhooks and quota alerts';

/** Every setting, in the order a form shows them (docs/api-choices.md#users-and-settings). */
export const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  setting('mms', SENDING, 'MMS', 'MMS (messages with media) may be sent.', '1', FLAG),
  setting(
    'templating',
    SENDING,
    'Templates',
    "Texts are rendered as templates, with the contact's data.",
    '1',
    FLAG,
  ),
  setting(
    'force_gsm_alphabet',
    SENDING,
    'GSM alphabet only',
    'Texts are converted to the GSM alphabet, so that more characters fit in one SMS.',
    '0',
    FLAG,
  ),
  setting(
    'phone_limit',
    SENDING,
    'Respect phone limits',
    "The dispatch respects the phones' sending limits.",
    '0',
    FLAG,
  ),
  setting(
    'phone_priority',
    SENDING,
    'Prefer higher priority',
    'The dispatch prefers the phones of higher priority.',
    '0',
    FLAG,
  ),
  setting(
    'send_window',
    SENDING,
    'Send window',
    'When messages may go out, in the time zone below; a message due outside it waits until it opens.',
    '',
    {
      ...NONE,
      type: 'text',
      allowed: `empty (any time), or ${WINDOW_SYNTAX}`,
      min_length: 0,
      max_length: MAX_WINDOW_CHARACTERS,
    },
  ),
  setting('timezone', SENDING, 'Time zone', 'The time zone the send window is read in.', '', {
    ...NONE,
    type: 'choice',
    allowed: "an IANA time zone name (such as Europe/Paris), or empty for the service's",
    choices: timeZoneChoices(),
  }),
  setting(
    'default_phone_country',
    SENDING,
    'Default country',
    'The country national numbers (without the international prefix) are read for.',
    '',
    {
      ...NONE,
      type: 'choice',
      allowed: 'an ISO 3166 alpha-2 country code (such as fr), or empty for none',
      choices: countryChoices(),
    },
  ),
  setting(
    'smsstop',
    STOP,
    'Respect the STOP list',
    'Numbers of the STOP list are not sent to, except messages tagged SMS_STOP.',
    '1',
    FLAG,
  ),
  setting(
    'smsstop_respond',
    STOP,
    'Answer STOP',
    'A STOP reply is answered with the STOP response.',
    '1',
    FLAG,
  ),
  setting(
    'smsstop_response',
    STOP,
    'STOP response',
    'The text sent back to a STOP reply.',
    'You will no longer receive messages from this number.',
    {
      ...NONE,
      type: 'text',
      allowed: `1 to ${MAX_VALUE_LENGTH} characters, not only blanks`,
      min_length: 1,
      max_length: MAX_VALUE_LENGTH,
    },
  ),
  setting('webhook', EVENTS, 'Webhooks', 'Events are sent to the webhooks.', '1', FLAG),
  setting(
    'alert_quota_limit_close',
    EVENTS,
    'Quota almost used',
    'The share of the quota consumed that sends a quota event "close"; 0: none.',
    '0.9',
    numberShape(0, 1, 4, 'a decimal from 0 to 1, such as 0.9 (0: no alert)'),
  ),
  setting(
    'alert_quota_limit_reached',
    EVENTS,
    'Quota used up',
    'A quota event "reached" is sent once nothing remains.',
    '1',
    FLAG,
  ),
  ...reliabilitySettings('failed', { on: '1', rateLimit: '10' }),
  ...reliabilitySettings('unknown', { on: '0', rateLimit: '25' }),
];

const DEFINITIONS = new Map(SETTING_DEFINITIONS.map((definition) => [definition.name, definition]));

/**
 * Settings of a new user (docs/api-choices.md#users-and-settings); values are strings, truthy when
 * a non-zero integer.
 */
export const DEFAULT_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(
  SETTING_DEFINITIONS.map((definition) => [definition.name, definition.default]),
);

/** PHP's `(int) value` truthiness, as RaspiSMS tests its settings: `"1"`, `"2"` on; `""`, `"0"`, `"x"` off. */
export function isSettingOn(settings: Readonly<Record<string, string>>, name: string): boolean {
  return phpIntval(settings[name] ?? '') !== 0;
}

/** A setting's value as it is stored, or why it cannot be. */
export type CheckedSetting = { value: string } | { reason: string };

/**
 * The one check of a setting's name and value, for the API and the CLI alike
 * (docs/api.md#post_setting), by its definition: the name must be a known setting; a choice is
 * matched in any case and stored as the choice is spelled (`FR` is stored `fr`, so that a
 * country has one spelling), a time zone by any of its names; numbers are stored without leading zeros, so that `010` and `10`
 * read alike everywhere; a text must not be only blanks (a blank reply is never sent).
 * `checkSettingsTogether` then compares each grace period with its period.
 */
export function checkSetting(name: string, value: unknown): CheckedSetting {
  const definition = Object.prototype.hasOwnProperty.call(DEFAULT_SETTINGS, name)
    ? DEFINITIONS.get(name)
    : undefined;
  if (!definition) {
    return {
      reason:
        `${JSON.stringify(name.length > 50 ? `${name.slice(0, 50)}…` : name)} is not a setting ` +
        `name: one of ${Object.keys(DEFAULT_SETTINGS).join(', ')}.`,
    };
  }
  if (typeof value !== 'string') {
    return { reason: `${name} must be a text.` };
  }
  const stored = storedValue(definition, SPELLINGS[name]?.(value) ?? value);
  if (stored === null) {
    return { reason: `${name} must be ${definition.allowed}.` };
  }
  const problem = SYNTAX_CHECKS[name]?.(stored);
  return problem
    ? { reason: `${name} must be ${definition.allowed}: ${problem}.` }
    : { value: stored };
}

/**
 * The settings whose values have other spellings than their choices': a time zone by any of its
 * IANA names (Asia/Kolkata, which Node's ICU lists as Asia/Calcutta; Etc/UTC), in any case.
 */
const SPELLINGS: Readonly<Record<string, (value: string) => string | null>> = {
  timezone: canonicalTimeZone,
};

/** The settings whose values have a syntax of their own: the problem with a value, or null. */
const SYNTAX_CHECKS: Readonly<Record<string, (value: string) => string | null>> = {
  send_window: (value) => {
    const parsed = value === '' ? null : parseSendWindow(value);
    return parsed && 'problem' in parsed ? parsed.problem : null;
  },
};

/** The digits a number setting is written with, before its range is checked. */
export function numberPattern(definition: SettingDefinition): string {
  const decimals = definition.decimals ?? 0;
  return `^\\d{1,${MAX_INTEGER_DIGITS}}${decimals > 0 ? `(?:\\.\\d{1,${decimals}})?` : ''}$`;
}

/** The value as stored, or null when the definition refuses it. */
function storedValue(definition: SettingDefinition, value: string): string | null {
  switch (definition.type) {
    case 'flag':
      return value === '0' || value === '1' ? value : null;
    case 'choice':
      return (
        definition.choices?.find((choice) => choice.value.toLowerCase() === value.toLowerCase())
          ?.value ?? null
      );
    case 'number': {
      const number = new RegExp(numberPattern(definition)).test(value) ? Number(value) : NaN;
      return number >= (definition.minimum ?? 0) && number <= (definition.maximum ?? Infinity)
        ? String(number)
        : null;
    }
    case 'text': {
      const length = [...value].length;
      // A text that may be empty is empty or has more than blanks.
      return (value.trim() !== '' || (definition.min_length === 0 && value === '')) &&
        length >= (definition.min_length ?? 0) &&
        length <= (definition.max_length ?? MAX_VALUE_LENGTH)
        ? value
        : null;
    }
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
