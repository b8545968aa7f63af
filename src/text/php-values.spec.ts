import { DateTime } from 'luxon';
import {
  compare,
  isNumericString,
  kindOf,
  looseEquals,
  PhpDate,
  PhpError,
  phpIntval,
  strictEquals,
  toBool,
  toInteger,
  toNumber,
  toText,
} from './php-values';

describe('PHP values', () => {
  it.each([
    ['12', true],
    [' 12 ', true],
    ['1.5e3', true],
    ['.5', true],
    ['-3.', true],
    ['12abc', false],
    ['', false],
    ['0x1A', false],
  ])('reads %j as numeric: %s', (text, expected) => {
    expect(isNumericString(text)).toBe(expected);
  });

  it.each([
    [null, ''],
    [true, '1'],
    [false, ''],
    [42, '42'],
    [0.1 + 0.2, '0.3'],
    [1 / 3, '0.33333333333333'],
    [1e20, '1.0E+20'],
    [1.5e-7, '1.5E-7'],
    [-2.5, '-2.5'],
    [Number.NaN, 'NAN'],
    [Number.NEGATIVE_INFINITY, '-INF'],
  ])('prints %p as PHP does: %j', (value, expected) => {
    expect(toText(value)).toBe(expected);
  });

  it('refuses to print lists, hashes and dates', () => {
    expect(() => toText(['a'])).toThrow(PhpError);
    expect(() => toText({ a: 1 })).toThrow(PhpError);
    expect(() => toText(new PhpDate(DateTime.utc()))).toThrow(PhpError);
  });

  it.each([
    [null, false],
    ['0', false],
    ['', false],
    ['0.0', true],
    [' ', true],
    [0, false],
    [[], false],
    [{}, false],
    [['0'], true],
  ])('takes %j as %s', (value, expected) => {
    expect(toBool(value)).toBe(expected);
  });

  it('makes numbers of leading-numeric strings and refuses other strings in arithmetic', () => {
    expect(toNumber('12abc')).toBe(12);
    expect(toNumber(null)).toBe(0);
    expect(toNumber(true)).toBe(1);
    expect(() => toNumber('abc')).toThrow(PhpError);
    expect(() => toNumber([1])).toThrow(PhpError);
  });

  it('makes integers as intval() does', () => {
    expect(toInteger('abc')).toBe(0);
    expect(toInteger('1e3')).toBe(1000);
    expect(toInteger(-1.9)).toBe(-1);
    expect(toInteger([])).toBe(0);
    expect(toInteger(['x'])).toBe(1);
  });

  it.each([
    ['100', 100],
    ['abc', 0],
    ['12abc', 12],
    [' 12', 12],
    ['1.9', 1],
    ['-5', -5],
    ['1e3', 1000],
    ['.5', 0],
    [12.7, 12],
    [true, 1],
    ['99999999999999', 2147483647],
  ])('casts %p to %p as PHP (int) does', (value, expected) => {
    expect(phpIntval(value)).toBe(expected);
  });

  it.each([
    [1, '1', true],
    ['abc', 0, false],
    [null, 0, true],
    [null, '0', false],
    [null, [], true],
    [true, 'a', true],
    ['1e1', '10', true],
    ['abc', 'ABC', false],
    [[1, 2], ['1', '2'], true],
    [{ a: 1 }, { a: '1' }, true],
    [[1], 1, false],
  ])('compares %j == %j loosely: %s', (left, right, expected) => {
    expect(looseEquals(left, right)).toBe(expected);
  });

  it('orders numbers, numeric strings, texts, and lists before scalars', () => {
    expect(compare('10', '9')).toBe(1);
    expect(compare('10', '9a')).toBe(-1);
    expect(compare(5, 'abc')).toBe(-1);
    expect(compare([1], 99)).toBe(1);
    expect(compare({ a: 1 }, { b: 1 })).toBeNull();
  });

  it('compares dates by their instant, and refuses to compare a date with anything else', () => {
    const earlier = new PhpDate(DateTime.fromISO('2024-01-01T00:00:00Z'));
    const later = new PhpDate(DateTime.fromISO('2024-01-01T01:00:00+00:30'));
    expect(compare(earlier, later)).toBe(-1);
    expect(() => compare(earlier, '2024-01-01')).toThrow(PhpError);
  });

  it('compares strictly by kind and value', () => {
    expect(strictEquals('1', 1)).toBe(false);
    expect(strictEquals([1, 'a'], [1, 'a'])).toBe(true);
    expect(strictEquals({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => kindOf(() => 1)).toThrow(PhpError);
    expect(() => kindOf(new Map())).toThrow(PhpError);
    expect(kindOf(Object.create(null))).toBe('hash');
  });
});
