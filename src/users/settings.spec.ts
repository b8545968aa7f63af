import {
  checkSetting,
  checkSettingsTogether,
  DEFAULT_SETTINGS,
  isSettingOn,
  SETTING_DEFINITIONS,
} from './settings';

describe('isSettingOn', () => {
  it.each([
    ['1', true],
    ['2', true],
    ['-1', true],
    ['1abc', true],
    ['0', false],
    ['', false],
    ['abc', false],
    ['0.9', false],
  ])('reads %j as %s, like PHP (int) casts', (value, expected) => {
    expect(isSettingOn({ name: value }, 'name')).toBe(expected);
  });

  it('reads a missing setting as off', () => {
    expect(isSettingOn({}, 'mms')).toBe(false);
  });

  it('has mms and templating on, phone_limit off, by default', () => {
    expect(isSettingOn(DEFAULT_SETTINGS, 'mms')).toBe(true);
    expect(isSettingOn(DEFAULT_SETTINGS, 'templating')).toBe(true);
    expect(isSettingOn(DEFAULT_SETTINGS, 'phone_limit')).toBe(false);
  });
});

describe('checkSetting', () => {
  it.each([
    ['mms', '0', '0'],
    ['webhook', '1', '1'],
    ['default_phone_country', 'FR', 'fr'],
    ['default_phone_country', 'gb', 'gb'],
    ['default_phone_country', '', ''],
    ['smsstop_response', 'x'.repeat(1000), 'x'.repeat(1000)],
    ['smsstop_response', '😀'.repeat(1000), '😀'.repeat(1000)],
    ['alert_quota_limit_close', '0.75', '0.75'],
    ['alert_quota_limit_close', '0', '0'],
    ['alert_quota_limit_close', '1', '1'],
    ['alert_quota_limit_reached', '0', '0'],
    ['phone_reliability_failed', '0', '0'],
    ['phone_reliability_unknown_auto_disable', '1', '1'],
    ['phone_reliability_failed_rate_limit', '0', '0'],
    ['phone_reliability_failed_rate_limit', '100', '100'],
    ['phone_reliability_unknown_rate_limit', '12.5', '12.5'],
    ['phone_reliability_unknown_rate_limit', '010', '10'],
    ['phone_reliability_failed_volume', '1', '1'],
    ['phone_reliability_failed_volume', '1000000', '1000000'],
    ['phone_reliability_unknown_period', '1', '1'],
    ['phone_reliability_unknown_period', '525600', '525600'],
    ['phone_reliability_failed_grace_period', '0', '0'],
    ['phone_reliability_failed_grace_period', '007', '7'],
    ['send_window', '', ''],
    ['send_window', 'mon-fri 08:00-20:00, sat 10:00-18:00', 'mon-fri 08:00-20:00, sat 10:00-18:00'],
    ['send_window', '22:00-06:00', '22:00-06:00'],
    ['timezone', '', ''],
    ['timezone', 'europe/paris', 'Europe/Paris'],
    ['timezone', 'UTC', 'UTC'],
    ['timezone', 'America/Santiago', 'America/Santiago'],
  ])('stores %s = %j as %j', (name, value, stored) => {
    expect(checkSetting(name, value)).toEqual({ value: stored });
  });

  it.each([
    ['Asia/Kolkata', ['Asia/Kolkata', 'Asia/Calcutta']],
    ['asia/calcutta', ['Asia/Kolkata', 'Asia/Calcutta']],
    ['Europe/Kyiv', ['Europe/Kyiv', 'Europe/Kiev']],
    ['Etc/UTC', ['UTC']],
    ['US/Eastern', ['America/New_York']],
  ])('stores the time zone %j by the name of the choices the runtime lists', (zone, names) => {
    const checked = checkSetting('timezone', zone);
    const choices = SETTING_DEFINITIONS.find(({ name }) => name === 'timezone')!.choices!;
    const stored = 'value' in checked ? checked.value : checked.reason;

    expect(names).toContain(stored);
    expect(choices.map(({ value }) => value)).toContain(stored);
  });

  it.each([
    ['api_key', '1', /^"api_key" is not a setting name: one of mms, /],
    ['toString', '1', /^"toString" is not a setting name/],
    ['phone_limit', '2', /^phone_limit must be 0 or 1\.$/],
    ['smsstop', '', /^smsstop must be 0 or 1\.$/],
    ['smsstop', ['1'], /^smsstop must be a text\.$/],
    ['default_phone_country', 'fra', /^default_phone_country must be an ISO 3166/],
    ['default_phone_country', 'xx', /^default_phone_country must be an ISO 3166/],
    ['default_phone_country', ' fr', /^default_phone_country must be an ISO 3166/],
    ['smsstop_response', '   ', /^smsstop_response must be 1 to 1000 characters/],
    ['smsstop_response', 'x'.repeat(1001), /^smsstop_response must be 1 to 1000 characters/],
    ['alert_quota_limit_close', '1.5', /^alert_quota_limit_close must be a decimal from 0 to 1/],
    ['alert_quota_limit_close', '90%', /^alert_quota_limit_close must be a decimal from 0 to 1/],
    ['alert_quota_limit_reached', '0.5', /^alert_quota_limit_reached must be 0 or 1\.$/],
    [
      'phone_reliability_failed_webhook',
      '2',
      /^phone_reliability_failed_webhook must be 0 or 1\.$/,
    ],
    ['phone_reliability_unknown', 'on', /^phone_reliability_unknown must be 0 or 1\.$/],
    ['phone_reliability_failed_rate_limit', '100.01', /must be a percentage from 0 to 100/],
    ['phone_reliability_failed_rate_limit', '-1', /must be a percentage from 0 to 100/],
    ['phone_reliability_failed_rate_limit', '10%', /must be a percentage from 0 to 100/],
    ['phone_reliability_failed_rate_limit', '0.125', /must be a percentage from 0 to 100/],
    ['phone_reliability_failed_rate_limit', '', /must be a percentage from 0 to 100/],
    ['phone_reliability_failed_volume', '0', /^phone_reliability_failed_volume must be a whole/],
    ['phone_reliability_failed_volume', '2.5', /^phone_reliability_failed_volume must be a whole/],
    ['phone_reliability_failed_volume', '1000001', /must be a whole number from 1 to 1000000/],
    ['phone_reliability_unknown_period', '0', /^phone_reliability_unknown_period must be a whole/],
    ['phone_reliability_unknown_period', '525601', /of minutes from 1 to 525600/],
    ['phone_reliability_unknown_period', '2h', /of minutes from 1 to 525600/],
    ['phone_reliability_failed_grace_period', '-1', /of minutes from 0 to 525599/],
    ['phone_reliability_failed_grace_period', ' 1', /of minutes from 0 to 525599/],
    ['phone_reliability_failed_email', '1', /^"phone_reliability_failed_email" is not a setting/],
    [
      'send_window',
      'weekdays 08:00-20:00',
      /^send_window must be empty \(any time\), or one or more HH:MM-HH:MM ranges .*: "weekdays 08:00-20:00" is not a range\.$/,
    ],
    ['send_window', '09:00-09:00', /: "09:00-09:00" starts and ends at once; for the whole day/],
    ['send_window', '  ', /^send_window must be empty \(any time\), or .* \(22:00-06:00\)\.$/],
    ['send_window', 'x'.repeat(256), /^send_window must be empty \(any time\), or one or more/],
    [
      'timezone',
      'Europe/Lyon',
      /^timezone must be an IANA time zone name \(such as Europe\/Paris\)/,
    ],
    ['timezone', '+02:00', /^timezone must be an IANA time zone name/],
  ])('refuses %s = %j naming it', (name, value, reason) => {
    const checked = checkSetting(name, value);
    expect('reason' in checked && checked.reason).toMatch(reason);
  });
});

describe('reliability defaults', () => {
  it('are those of RaspiSMS, failed rates checked and unknown ones not, without the e-mail variants', () => {
    const reliability = Object.fromEntries(
      Object.entries(DEFAULT_SETTINGS).filter(([name]) => name.startsWith('phone_reliability')),
    );

    expect(reliability).toEqual({
      phone_reliability_failed: '1',
      phone_reliability_failed_rate_limit: '10',
      phone_reliability_failed_volume: '25',
      phone_reliability_failed_period: '120',
      phone_reliability_failed_grace_period: '1',
      phone_reliability_failed_webhook: '1',
      phone_reliability_failed_auto_disable: '0',
      phone_reliability_unknown: '0',
      phone_reliability_unknown_rate_limit: '25',
      phone_reliability_unknown_volume: '25',
      phone_reliability_unknown_period: '120',
      phone_reliability_unknown_grace_period: '1',
      phone_reliability_unknown_webhook: '1',
      phone_reliability_unknown_auto_disable: '0',
    });
    for (const [name, value] of Object.entries(reliability)) {
      expect(checkSetting(name, value)).toEqual({ value });
    }
  });
});

describe('checkSettingsTogether', () => {
  it('accepts a grace period shorter than its period, given or stored', () => {
    expect(checkSettingsTogether(DEFAULT_SETTINGS, { phone_reliability_failed_period: '2' })).toBe(
      null,
    );
    expect(
      checkSettingsTogether(
        { ...DEFAULT_SETTINGS, phone_reliability_unknown_period: '30' },
        { phone_reliability_unknown_grace_period: '29' },
      ),
    ).toBe(null);
  });

  it('refuses a grace period as long as its period, whichever of the two changes', () => {
    expect(
      checkSettingsTogether(DEFAULT_SETTINGS, { phone_reliability_failed_grace_period: '120' }),
    ).toBe(
      'phone_reliability_failed_grace_period (120) must be less than ' +
        'phone_reliability_failed_period (120): the check looks at the messages sent between ' +
        'the period and the grace period ago.',
    );
    expect(
      checkSettingsTogether(
        { ...DEFAULT_SETTINGS, phone_reliability_unknown_grace_period: '10' },
        { phone_reliability_unknown_period: '5' },
      ),
    ).toMatch(/^phone_reliability_unknown_grace_period \(10\) must be less than/);
  });

  it('accepts both changed together, and ignores a pair the change does not touch', () => {
    expect(
      checkSettingsTogether(DEFAULT_SETTINGS, {
        phone_reliability_failed_period: '300',
        phone_reliability_failed_grace_period: '200',
      }),
    ).toBe(null);
    expect(
      checkSettingsTogether(
        { ...DEFAULT_SETTINGS, phone_reliability_failed_grace_period: '500' },
        { mms: '0' },
      ),
    ).toBe(null);
  });
});

describe('SETTING_DEFINITIONS', () => {
  it.each(SETTING_DEFINITIONS.map((definition) => [definition.name, definition]))(
    "takes %s's own default as it is stored",
    (name, definition) => {
      expect(checkSetting(name, definition.default)).toEqual({ value: definition.default });
    },
  );

  it('offers only choices the check takes', () => {
    for (const definition of SETTING_DEFINITIONS) {
      for (const choice of definition.choices ?? []) {
        expect(checkSetting(definition.name, choice.value)).toEqual({ value: choice.value });
      }
    }
  });
});
