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
};

/** PHP's `(int) value` truthiness, as RaspiSMS tests its settings: `"1"`, `"2"` on; `""`, `"0"`, `"x"` off. */
export function isSettingOn(settings: Readonly<Record<string, string>>, name: string): boolean {
  const value = parseInt(settings[name] ?? '', 10);
  return !Number.isNaN(value) && value !== 0;
}
