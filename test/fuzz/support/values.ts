import fc from 'fast-check';
import { Entry, list, map, num, str, Value } from './params';

/*
 * Generators of parameter values: boundaries and hostile texts for each kind of parameter, and
 * wrong shapes (lists and maps where a scalar is expected, the reverse, prototype keys).
 */

export const LONE_SURROGATES = ['\ud800', '\udfff', 'a\udc00b', 'x\ud83d', '\ud83d\ud83d'];

/** Texts around the documented limits: 1000 code points of text, 150 of a phone name. */
export const LONG_TEXTS = [
  'a'.repeat(1000),
  'a'.repeat(1001),
  '😀'.repeat(1000),
  '😀'.repeat(1001),
  'é'.repeat(1001),
  'e\u0301'.repeat(500),
  'x'.repeat(150),
  'x'.repeat(151),
  '😀'.repeat(151),
  'y'.repeat(65_536),
];

const HOSTILE_TEXTS = [
  '',
  ' ',
  '\t',
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f',
  '\r\n',
  '\n',
  '\u2028\u2029',
  '\u202ertl\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  'مرحبا',
  '\ufeffbom',
  '\u200d\u200c',
  '\ufffe\uffff',
  '😀',
  '👩‍👩‍👧‍👦',
  '🇫🇷',
  'e\u0301',
  '０１２',
  '١٢٣',
  "' OR 1=1 --",
  '"; DROP TABLE phone; --',
  '\\',
  '\\"',
  '"',
  "'",
  '`',
  '%',
  '%00',
  '%zz',
  '%C0%AF',
  '+',
  '&',
  '=',
  '[',
  ']',
  '[]',
  '{}',
  '{"a":1}',
  '[1,2]',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'true',
  'false',
  'NaN',
  'Infinity',
  '-0',
  '0x10',
  '1e309',
  '../../../../etc/passwd',
  '..\\..\\windows',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{ 7*7 }}',
  '{{ contact.firstname }}',
  '{{ contact_metas.number|upper }}{% if contact.x %}y{% endif %}',
  '{% for i in 1..5 %}{{ i }}{% endfor %}',
  '{{ _self }}',
  '{{ ',
  '{% if %}',
  '%s%s%s%n',
  'SMS_STOP',
  'stop',
];

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_TEXTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG_TEXTS) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.string({ maxLength: 4 }),
        fc.constantFrom(...LONE_SURROGATES),
        fc.string({ maxLength: 4 }),
      )
      .map(([before, lone, after]) => before + lone + after),
  },
);

export const ID_TEXTS = [
  '',
  '0',
  '1',
  '2',
  '007',
  '-1',
  '-0',
  '+1',
  ' 1',
  '1 ',
  '1.0',
  '1.5',
  '1e3',
  '0x1A',
  '0b1',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '99999999999999999999999',
  '１',
  '١',
  'NaN',
  'Infinity',
  'null',
  'true',
  '1,2',
  '1;2',
  'abc',
];

/** An id of the pool (existing entries, the caller's or another user's), or a boundary. */
export function idValue(pool: readonly number[]): fc.Arbitrary<Value> {
  const known = pool.length ? pool : [1];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known).map((id) => str(String(id))) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map(num) },
    { weight: 3, arbitrary: fc.constantFrom(...ID_TEXTS).map(str) },
    { weight: 1, arbitrary: fc.integer().map((n) => str(String(n))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Value>(
        num(-1),
        num(1.5),
        num(2 ** 31),
        num(2 ** 53 + 2),
        { k: 'raw', v: '1e999' },
        { k: 'raw', v: '-0' },
        { k: 'raw', v: '1.0' },
        { k: 'bool', v: true },
        { k: 'null' },
      ),
    },
  );
}

/** The text of an id, for paths. */
export function idText(pool: readonly number[]): fc.Arbitrary<string> {
  const known = pool.length ? pool : [1];
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...ID_TEXTS.filter(Boolean)) },
    { weight: 1, arbitrary: fc.integer().map(String) },
  );
}

const DATES = [
  '2030-01-31 08:30:00',
  '2099-12-31 23:59:59',
  '2024-01-01 00:00:00',
  '1970-01-01 00:00:00',
  '0000-00-00 00:00:00',
  '0001-01-01 00:00:00',
  '9999-12-31 23:59:59',
  '2024-02-29 12:00:00',
  '2023-02-29 12:00:00',
  '2024-13-01 00:00:00',
  '2024-04-31 00:00:00',
  '2024-01-01 24:00:00',
  '2024-01-01 23:60:00',
  '2024-01-01 23:59:60',
  '2024-01-01T00:00:00Z',
  '2024-01-01 00:00:00+02:00',
  '2024-01-01 00:00',
  '2024-01-01',
  '2024-1-1 0:0:0',
  '+002024-01-01 00:00:00',
  '-0001-01-01 00:00:00',
  ' 2024-01-01 00:00:00',
  '2024-01-01 00:00:00 ',
  '２０２４-01-01 00:00:00',
  'now',
  'tomorrow',
  '1704067200',
];

export const dateText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DATES) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
      )
      .map(
        ([y, mo, d, h, mi, s]) =>
          `${String(y).padStart(4, '0')}-${pad(mo)}-${pad(d)} ${pad(h)}:${pad(mi)}:${pad(s)}`,
      ),
  },
  { weight: 1, arbitrary: hostileText },
);

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

export const BOOLEAN_TEXTS = [
  '1',
  '0',
  'true',
  'false',
  'on',
  'off',
  'yes',
  'no',
  '',
  'TRUE',
  ' yes ',
  '2',
  '-1',
  'null',
  'y',
  'oui',
];

export const booleanValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BOOLEAN_TEXTS).map(str) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Value>(
      { k: 'bool', v: true },
      { k: 'bool', v: false },
      num(1),
      num(0),
      num(2),
      { k: 'null' },
    ),
  },
  { weight: 1, arbitrary: hostileText.map(str) },
);

const PHONE_NUMBERS = [
  '+33612345678',
  '+33 6 12 34 56 78',
  '+33-6-12-34-56-78',
  '+1 415 555 2671',
  '+14155552671',
  '+447700900123',
  '0612345678',
  '33612345678',
  '+',
  '++33612345678',
  '+0',
  '+999999999999999',
  '+3361234567890123456789',
  '+33612345678x12',
  'tel:+33612345678',
  '+33６１２３４５６７８',
  '+33612345678\u0000',
  '%2B33612345678',
  ' +33612345678 ',
  '+33 (0)6 12 34 56 78',
];

export const phoneNumberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PHONE_NUMBERS) },
  { weight: 2, arbitrary: fc.stringMatching(/^\+?[0-9 ]{1,20}$/) },
  { weight: 1, arbitrary: hostileText },
);

/** Keys that poison naive object handling, at any depth of a body. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

const ODD_KEYS = [
  ...PROTO_KEYS,
  '0',
  '1',
  '99999999999',
  '',
  ' ',
  '[]',
  'a]',
  '[a',
  'number',
  'data',
  'toString',
  'length',
];

/** A value in a shape other than the expected one, around `leaf`. */
export function reshaped(leaf: fc.Arbitrary<Value>): fc.Arbitrary<Value> {
  return fc.oneof(
    leaf.map((value) => list([value])),
    fc.array(leaf, { maxLength: 3 }).map(list),
    fc.tuple(fc.constantFrom(...ODD_KEYS), leaf).map(([key, value]) => map([[key, value]])),
    fc.constantFrom<Value>({ k: 'null' }, list([]), map([]), { k: 'bool', v: true }, num(-1.5)),
    protoNest(leaf),
  );
}

/** `{"__proto__": {"constructor": {"prototype": …}}}` and the like, one to six levels deep. */
export function protoNest(leaf: fc.Arbitrary<Value>): fc.Arbitrary<Value> {
  return fc
    .tuple(fc.array(fc.constantFrom(...ODD_KEYS), { minLength: 1, maxLength: 6 }), leaf)
    .map(([keys, value]) => keys.reduceRight<Value>((inner, key) => map([[key, inner]]), value));
}

/** Mostly `leaf`, sometimes another kind of value or shape. */
export function mostly(leaf: fc.Arbitrary<Value>): fc.Arbitrary<Value> {
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 2, arbitrary: hostileText.map(str) },
    { weight: 2, arbitrary: reshaped(leaf) },
  );
}

/** Extra parameters nobody asked for, proto keys among them. */
export const strayEntries: fc.Arbitrary<Entry[]> = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(...ODD_KEYS, 'api_key', 'id', 'page', 'foo'),
      fc.string({ maxLength: 8 }),
    ),
    fc.oneof(hostileText.map(str), protoNest(hostileText.map(str))),
  ),
  { maxLength: 3 },
);
