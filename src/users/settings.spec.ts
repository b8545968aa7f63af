import { DEFAULT_SETTINGS, isSettingOn } from './settings';

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
