import { DateTime } from 'luxon';

/**
 * Values as RaspiSMS's PHP code sees a contact's data: JSON scalars, lists (JSON arrays), hashes
 * (JSON objects, and hash literals of an expression) and dates (made by `date()`). Conditions and
 * templates compare, print and convert them the way PHP 8 does, so that a condition written for
 * RaspiSMS selects the same contacts here.
 */

/** A rule of PHP's broken by an expression: the evaluation stops, with this message. */
export class PhpError extends Error {}

/** A PHP DateTime: an instant seen in a time zone. */
export class PhpDate {
  constructor(readonly time: DateTime) {}
}

export type PhpKind = 'null' | 'bool' | 'number' | 'string' | 'list' | 'hash' | 'date';

/** The kind of a value, or a PhpError for what JSON cannot hold (functions, class instances…). */
export function kindOf(value: unknown): PhpKind {
  if (value === null || value === undefined) {
    return 'null';
  }
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'object':
      if (Array.isArray(value)) {
        return 'list';
      }
      if (value instanceof PhpDate) {
        return 'date';
      }
      if (isPlainObject(value)) {
        return 'hash';
      }
      break;
    default:
      break;
  }
  throw new PhpError('a value is neither JSON nor a date');
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/** The own entries of a list or hash: never anything inherited from a prototype. */
export function entriesOf(value: unknown): Array<[string, unknown]> {
  return Object.keys(value as object).map((key) => [key, (value as Record<string, unknown>)[key]]);
}

const NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;
const LEADING_NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

/** PHP 8's numeric strings: a number, optionally surrounded by whitespace. */
export function isNumericString(text: string): boolean {
  return NUMERIC.test(text);
}

/**
 * The number a text starts with, as PHP's conversions read it (`"12abc"` is 12, `"1e3"` 1000,
 * leading whitespace skipped), or null when it starts with none (`"abc"`).
 */
export function leadingNumber(text: string): number | null {
  const leading = LEADING_NUMERIC.exec(text);
  return leading === null ? null : Number(leading[0].trim());
}

/** PHP's truth: false, 0, 0.0, '', '0', null and empty lists/hashes are false; all else true. */
export function toBool(value: unknown): boolean {
  switch (kindOf(value)) {
    case 'null':
      return false;
    case 'bool':
      return value as boolean;
    case 'number':
      return value !== 0;
    case 'string':
      return value !== '' && value !== '0';
    case 'list':
    case 'hash':
      return Object.keys(value as object).length > 0;
    case 'date':
      return true;
  }
}

/**
 * A value as an arithmetic operand: null is 0, booleans 0 or 1, a numeric string its number, a
 * string that starts with a number that number (PHP warns, and goes on). Other strings, lists,
 * hashes and dates are refused, as PHP 8 refuses them.
 */
export function toNumber(value: unknown): number {
  switch (kindOf(value)) {
    case 'null':
      return 0;
    case 'bool':
      return value ? 1 : 0;
    case 'number':
      return value as number;
    case 'string': {
      const leading = leadingNumber(value as string);
      if (leading === null) {
        throw new PhpError(`"${shorten(value as string)}" is not a number`);
      }
      return leading;
    }
    case 'list':
    case 'hash':
    case 'date':
      throw new PhpError('a list, a hash or a date is not a number');
  }
}

/** A value as an integer, as PHP's `(int)` and `intval()` make it (0 for what is no number). */
export function toInteger(value: unknown): number {
  const kind = kindOf(value);
  if (kind === 'list' || kind === 'hash') {
    return toBool(value) ? 1 : 0;
  }
  if (kind === 'date') {
    throw new PhpError('a date is not a number');
  }
  if (kind === 'string' && leadingNumber(value as string) === null) {
    return 0;
  }
  const number = toNumber(value);
  return Number.isFinite(number) ? Math.trunc(number) : 0;
}

/** The largest value of a signed INT column, where RaspiSMS keeps the integers it casts. */
const MAX_INT = 2_147_483_647;

/**
 * PHP's `(int)` of a scalar: the leading number of a text (`"12abc"` is 12, `"abc"` 0, `"1e3"`
 * 1000), truncated toward zero; kept within an INT column's range, so that a text too large
 * (`"1e999"`) is capped where toInteger of a template gives 0.
 */
export function phpIntval(value: string | number | boolean): number {
  const number = typeof value === 'string' ? (leadingNumber(value) ?? 0) : toNumber(value);
  if (Number.isNaN(number)) {
    return 0;
  }
  return Math.min(Math.max(Math.trunc(number), -MAX_INT - 1), MAX_INT);
}

/**
 * A value as text, as PHP prints it: null and false are empty, true is `1`, floats keep 14
 * significant digits. Lists, hashes and dates have no text: PHP would print `Array` or fail.
 */
export function toText(value: unknown): string {
  switch (kindOf(value)) {
    case 'null':
      return '';
    case 'bool':
      return value ? '1' : '';
    case 'number':
      return numberToText(value as number);
    case 'string':
      return value as string;
    case 'list':
    case 'hash':
      throw new PhpError('a list or a hash has no text: use one of its items');
    case 'date':
      throw new PhpError('a date has no text: format it');
  }
}

/** PHP's `%.14G`, the format of a float printed with the default `precision` of 14. */
function numberToText(number: number): string {
  if (Number.isNaN(number)) {
    return 'NAN';
  }
  if (!Number.isFinite(number)) {
    return number > 0 ? 'INF' : '-INF';
  }
  if (Number.isSafeInteger(number)) {
    return String(number);
  }
  const exponent = Math.floor(Math.log10(Math.abs(number)));
  if (exponent < -4 || exponent >= 14) {
    const [mantissa, power] = number.toExponential(13).split('e');
    const digits = mantissa.replace(/\.?0+$/, '');
    const sign = power.startsWith('-') ? '-' : '+';
    return `${digits.includes('.') ? digits : `${digits}.0`}E${sign}${power.replace(/^[+-]/, '')}`;
  }
  return number
    .toPrecision(14)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

function shorten(text: string): string {
  return text.length > 20 ? `${text.slice(0, 20)}…` : text;
}

/**
 * PHP 8's `==`: numbers and numeric strings compare as numbers, other strings as strings, null
 * and booleans as booleans, lists and hashes item by item.
 */
export function looseEquals(left: unknown, right: unknown): boolean {
  return compare(left, right) === 0;
}

/**
 * PHP 8's comparison (`<=>`): -1, 0 or 1, or null when the values are not comparable (two
 * lists with different keys), where every ordering operator answers false.
 */
export function compare(left: unknown, right: unknown): -1 | 0 | 1 | null {
  const leftKind = kindOf(left);
  const rightKind = kindOf(right);
  if (leftKind === 'bool' || rightKind === 'bool') {
    return order(toBool(left), toBool(right));
  }
  if (leftKind === 'null' && rightKind === 'null') {
    return 0;
  }
  if (leftKind === 'null' && rightKind === 'string') {
    return order('', right as string);
  }
  if (leftKind === 'string' && rightKind === 'null') {
    return order(left as string, '');
  }
  if (leftKind === 'null' || rightKind === 'null') {
    return order(toBool(left), toBool(right));
  }
  if (leftKind === 'date' || rightKind === 'date') {
    if (leftKind !== rightKind) {
      throw new PhpError('a date can only be compared with a date');
    }
    return order((left as PhpDate).time.toMillis(), (right as PhpDate).time.toMillis());
  }
  const leftIsArray = leftKind === 'list' || leftKind === 'hash';
  const rightIsArray = rightKind === 'list' || rightKind === 'hash';
  if (leftIsArray || rightIsArray) {
    if (!(leftIsArray && rightIsArray)) {
      return leftIsArray ? 1 : -1;
    }
    return compareArrays(left as object, right as object);
  }
  if (leftKind === 'number' && rightKind === 'number') {
    return order(left as number, right as number);
  }
  if (leftKind === 'number' || rightKind === 'number') {
    const text = (leftKind === 'string' ? left : right) as string;
    if (isNumericString(text)) {
      return order(toNumber(left), toNumber(right));
    }
    return order(toText(left), toText(right));
  }
  const leftText = left as string;
  const rightText = right as string;
  if (isNumericString(leftText) && isNumericString(rightText)) {
    return order(toNumber(leftText), toNumber(rightText));
  }
  return order(leftText, rightText);
}

function compareArrays(left: object, right: object): -1 | 0 | 1 | null {
  const leftEntries = entriesOf(left);
  const rightEntries = entriesOf(right);
  if (leftEntries.length !== rightEntries.length) {
    return order(leftEntries.length, rightEntries.length);
  }
  const rightValues = new Map(rightEntries);
  for (const [key, value] of leftEntries) {
    if (!rightValues.has(key)) {
      return null;
    }
    const result = compare(value, rightValues.get(key));
    if (result !== 0) {
      return result;
    }
  }
  return 0;
}

function order<T extends number | string | boolean>(left: T, right: T): -1 | 0 | 1 {
  if (left === right) {
    return 0;
  }
  return left < right ? -1 : 1;
}

/** PHP's `===`: same kind and same value; lists and hashes with the same keys in the same order. */
export function strictEquals(left: unknown, right: unknown): boolean {
  const leftKind = kindOf(left);
  if (leftKind !== kindOf(right)) {
    return false;
  }
  switch (leftKind) {
    case 'null':
      return true;
    case 'list':
    case 'hash': {
      const leftEntries = entriesOf(left);
      const rightEntries = entriesOf(right);
      return (
        leftEntries.length === rightEntries.length &&
        leftEntries.every(
          ([key, value], index) =>
            rightEntries[index][0] === key && strictEquals(value, rightEntries[index][1]),
        )
      );
    }
    case 'date':
      return left === right;
    case 'bool':
    case 'number':
    case 'string':
      return left === right;
  }
}
