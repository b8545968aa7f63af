import { DateTime } from 'luxon';
import { CONDITION_FUNCTIONS, FunctionScope } from './condition-functions';
import { PhpDate, PhpError } from './php-values';

const NOW = DateTime.fromISO('2024-05-12T10:20:30', { zone: 'Europe/Paris' });
const scope: FunctionScope = { now: () => NOW };

function call(name: string, ...args: unknown[]): unknown {
  return CONDITION_FUNCTIONS[name](scope, ...args);
}

function wallTime(value: unknown): string {
  expect(value).toBeInstanceOf(PhpDate);
  return (value as PhpDate).time.toFormat('yyyy-MM-dd HH:mm:ss');
}

describe('condition functions', () => {
  it('has no function inherited from a prototype', () => {
    expect(CONDITION_FUNCTIONS.constructor).toBeUndefined();
    expect(CONDITION_FUNCTIONS.toString).toBeUndefined();
  });

  it.each([
    [['Élodie', 1, 3], 'lod'],
    [['Élodie', -2, null], 'ie'],
    [['Élodie', 0, -4], 'Él'],
    [['Élodie', 10, null], ''],
    [['Élodie', 2, -10], ''],
    [['😀ab', 0, 1], '😀'],
  ])('substr(%j) is %j, by characters as mb_substr', (args, expected) => {
    expect(call('substr', ...args)).toBe(expected);
  });

  it('reads dates in the service zone, with the current time for a date without one', () => {
    expect(wallTime(call('date', '1990-05-12'))).toBe('1990-05-12 00:00:00');
    expect(wallTime(call('date'))).toBe('2024-05-12 10:20:30');
    expect(wallTime(call('date', '+1 day'))).toBe('2024-05-13 10:20:30');
    expect(call('date', 'the day after never')).toBe(false);
  });

  it('fills what a format does not give with the current time, or the epoch after !', () => {
    expect(wallTime(call('date_from_format', 'd/m/Y', '01/02/1990'))).toBe('1990-02-01 10:20:30');
    expect(wallTime(call('date_from_format', '!d/m/Y', '01/02/1990'))).toBe('1990-02-01 00:00:00');
    expect(wallTime(call('date_from_format', 'Y-m-d H:i', '1990-02-01 08:05'))).toBe(
      '1990-02-01 08:05:30',
    );
    expect(wallTime(call('date_from_format', 'j F Y', '3 March 2001'))).toBe('2001-03-03 10:20:30');
    expect(call('date_from_format', 'd/m/Y', '1990-02-01')).toBe(false);
  });

  it('refuses format characters it cannot read', () => {
    expect(() => call('date_from_format', 'z', '12')).toThrow(PhpError);
  });

  it('tells a birthday by month and day only', () => {
    expect(call('is_birthday', call('date', '1990-05-12'))).toBe(true);
    expect(call('is_birthday', call('date', '1990-05-13'))).toBe(false);
    expect(() => call('is_birthday', '1990-05-12')).toThrow(PhpError);
  });

  it('checks the number of arguments', () => {
    expect(() => call('lower')).toThrow('lower() takes 1 arguments, not 0');
    expect(() => call('substr', 'a')).toThrow('substr() takes 2 to 3 arguments, not 1');
  });

  it('converts as intval and boolval', () => {
    expect(call('intval', '0x1A', 16)).toBe(26);
    expect(call('intval', '12.9')).toBe(12);
    expect(call('boolval', [])).toBe(false);
  });
});
