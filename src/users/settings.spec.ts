import { checkSetting, DEFAULT_SETTINGS, isSettingOn } from './settings';

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
  ])('stores %s = %j as %j', (name, value, stored) => {
    expect(checkSetting(name, value)).toEqual({ value: stored });
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
  ])('refuses %s = %j naming it', (name, value, reason) => {
    const checked = checkSetting(name, value);
    expect('reason' in checked && checked.reason).toMatch(reason);
  });
});
