import { ApiError, ErrorCode } from '../errors/api-error';
import { Params } from './parse';

/** Brackets after a parameter's name: `numbers[0][data][firstname]` has 3. */
export const MAX_BRACKET_DEPTH = 5;

/**
 * The prototype of bracket maps: empty and without a prototype itself, so that a map inherits
 * nothing (no `constructor`, `toString` or `__proto__` accessor), as `Object.create(null)` would
 * make it. V8 makes prototype-less objects as slow dictionaries, three times the cost, which
 * counted with tens of thousands of maps in one body.
 */
const NOTHING: object = Object.freeze(Object.create(null) as object);

/** Indexes up to 15 digits are exact as numbers, so a list keeps their order. */
const LIST_INDEX = /^(0|[1-9]\d{0,14})$/;

/**
 * How many parameters a request may still carry: its query string and its body fields draw on
 * one budget, so that no source can make the parser or the services work past MAX_PARAMS.
 */
export class ParamBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  take(count = 1): void {
    this.used += count;
    if (this.used > this.limit) {
      throw tooManyParams(this.limit);
    }
  }
}

export function tooManyParams(limit: number): ApiError {
  return ApiError.tooLarge(
    ErrorCode.INVALID_PARAMETER,
    `the request has more than ${limit} parameters (MAX_PARAMS).`,
  );
}

/**
 * Parses a query string or urlencoded body with PHP's bracket syntax (`numbers[0][data]=…`,
 * `contacts[]=1`): see `ParamsBuilder` for the rules. `+` is a space; a `%` that does not start
 * two hex digits is taken literally; escapes that do not decode to UTF-8 text are refused,
 * naming the parameter, rather than stored as replacement characters.
 * Each step is linear in the input, so a body of any shape costs in proportion to its size.
 */
export function parseQueryString(source: string, budget: ParamBudget): Params {
  // Counted first, so that a request over the limit is refused before any work on it.
  budget.take(countPairs(source));
  const builder = new ParamsBuilder();
  // The next `=` at or after `start`, found again only once passed: searching from each pair
  // would rescan a long stretch without `=` once per pair.
  let equals = -1;
  let start = 0;
  while (start < source.length) {
    let end = source.indexOf('&', start);
    if (end < 0) {
      end = source.length;
    }
    if (end > start) {
      if (equals < start) {
        equals = source.indexOf('=', start);
        if (equals < 0) {
          equals = source.length;
        }
      }
      const hasValue = equals < end;
      const rawName = source.slice(start, hasValue ? equals : end);
      const name = decodeComponent(rawName);
      if (name === null) {
        throw ApiError.invalid(
          `${displayName(rawName)} : the parameter name's percent-escapes are not UTF-8 text.`,
        );
      }
      const value = hasValue ? decodeComponent(source.slice(equals + 1, end)) : '';
      if (value === null) {
        throw ApiError.invalid(
          `${displayName(name)} : the value's percent-escapes are not UTF-8 text; ` +
            'encode the text in UTF-8 before escaping it.',
        );
      }
      builder.add(name, value);
    }
    start = end + 1;
  }
  return builder.build();
}

/** Parameters from decoded `[name, value]` pairs (multipart fields), by the same rules. */
export function paramsFromPairs(pairs: Iterable<[string, string]>): Params {
  const builder = new ParamsBuilder();
  for (const [name, value] of pairs) {
    builder.add(name, value);
  }
  return builder.build();
}

/** The raw query string of a request's URL, without its `?`. */
export function queryStringOf(url: string): string {
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start + 1);
}

function countPairs(source: string): number {
  let count = 0;
  let start = 0;
  while (start < source.length) {
    const end = source.indexOf('&', start);
    if (end < 0) {
      return count + 1;
    }
    count += end > start ? 1 : 0;
    start = end + 1;
  }
  return count;
}

/** Values given more than once under the same name. */
class Repeated {
  constructor(readonly values: string[]) {}
}

/** What a name or bracket key holds while the parameters are being built. */
type Slot = string | Repeated | Bag;

/**
 * The keys given under one name, list indexes apart, as they decide whether it is a list.
 * `slots` holds what the indexes hold, in the order they came. While they are exactly 0, 1, 2…
 * (appends, the usual lists) nothing else is kept; otherwise `indexes` lists them, and
 * `positions` finds one, made the first time it is needed. With tens of thousands of bags in a
 * body, each object less is time the garbage collector does not take from other clients.
 * `named` is already the map the bag becomes.
 */
class Bag {
  slots: Slot[] | null = null;
  /** Null while the indexes are 0, 1, 2… in that order. */
  indexes: number[] | null = null;
  /** Whether `indexes` ascends, as it does unless an index came after a larger one. */
  ascending = true;
  positions: Map<number, number> | null = null;
  named: Record<string, Slot> | null = null;
  /** PHP's next index for `[]`: one past the largest index so far. */
  next = 0;

  get(key: string | number): Slot | undefined {
    if (typeof key === 'string') {
      return this.named?.[key];
    }
    const position = this.positionOf(key);
    return position === undefined ? undefined : this.slots?.[position];
  }

  set(key: string | number, slot: Slot): void {
    if (typeof key === 'string') {
      this.named ??= Object.create(NOTHING) as Record<string, Slot>;
      this.named[key] = slot;
      return;
    }
    const slots = (this.slots ??= []);
    const position = this.positionOf(key);
    if (position !== undefined) {
      slots[position] = slot;
      return;
    }
    if (this.indexes === null && key !== slots.length) {
      this.indexes = slots.map((_slot, index) => index);
    }
    if (this.indexes !== null) {
      this.ascending &&= key >= this.next;
      this.positions?.set(key, this.indexes.length);
      this.indexes.push(key);
    }
    slots.push(slot);
    this.next = Math.max(this.next, key + 1);
  }

  private positionOf(index: number): number | undefined {
    if (this.slots === null || index >= this.next) {
      return undefined;
    }
    if (this.indexes === null) {
      return index;
    }
    const last = this.indexes.length - 1;
    if (this.indexes[last] === index) {
      return last;
    }
    if (this.positions === null) {
      this.positions = new Map(this.indexes.map((known, position) => [known, position]));
    }
    return this.positions.get(index);
  }
}

/** A bracket key as a list index when it is one (`0`, `25`; not `01` or `-1`). */
function indexOrName(key: string): string | number {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && LIST_INDEX.test(key) ? Number(key) : key;
}

/**
 * Builds parameters from decoded `name=value` pairs (their caller charges them to the request's
 * `ParamBudget`), with the bracket rules of PHP's `parse_str`, which RaspiSMS clients rely on:
 * - `a[]=x` appends to the list `a`; `a[3]=x` sets index 3; `a[k]=x` sets key `k` of the map `a`.
 *   A bag whose keys are all indexes becomes a list in index order, gaps closed
 *   (`a[5]=x&a[2]=y` is `['y', 'x']`); any other bag is a map that inherits nothing (and the
 *   parameters themselves have no prototype at all).
 * - The same name given again makes a list of its values (`api_key=a&api_key=b` is two keys,
 *   which authentication refuses, where PHP would silently keep the last one).
 * - A value and a bracket map under one name: the later replaces the earlier, as in PHP.
 * - Text after a closing bracket that does not open another one is ignored, as in PHP; a name
 *   whose first bracket never closes is taken whole, literally.
 * - More than MAX_BRACKET_DEPTH brackets are refused, naming the parameter.
 * - A name with a `__proto__` part is dropped: it must never reach an object's prototype.
 */
export class ParamsBuilder {
  private readonly root = new Bag();

  constructor() {
    this.root.named = Object.create(null) as Record<string, Slot>;
  }

  add(name: string, value: string): void {
    const open = name.indexOf('[');
    let close = open < 1 ? -1 : name.indexOf(']', open + 1);
    if (close < 0) {
      if (name !== '' && name !== '__proto__') {
        put(this.root, name, value);
      }
      return;
    }
    if (name.includes('__proto__') && hasProtoPart(name, open)) {
      return;
    }
    let bag = this.root;
    let key: string | number = name.slice(0, open);
    let at = open;
    for (let depth = 1; ; depth += 1) {
      if (depth > MAX_BRACKET_DEPTH) {
        throw ApiError.invalid(
          `${displayName(name)} : brackets are nested deeper than ${MAX_BRACKET_DEPTH} levels.`,
        );
      }
      const existing = bag.get(key);
      let child: Bag;
      if (existing instanceof Bag) {
        child = existing;
      } else {
        child = new Bag();
        bag.set(key, child);
      }
      bag = child;
      key = close === at + 1 ? bag.next : indexOrName(name.slice(at + 1, close));
      at = close + 1;
      if (name.charCodeAt(at) !== 0x5b) {
        break;
      }
      close = name.indexOf(']', at + 1);
      if (close < 0) {
        break;
      }
    }
    put(bag, key, value);
  }

  /** The parameters; once only, as the bags are turned into them in place. */
  build(): Params {
    return toMap(this.root);
  }
}

function put(bag: Bag, key: string | number, value: string): void {
  const existing = bag.get(key);
  if (typeof existing === 'string') {
    bag.set(key, new Repeated([existing, value]));
  } else if (existing instanceof Repeated) {
    existing.values.push(value);
  } else {
    bag.set(key, value);
  }
}

/** Whether one of the parts the brackets of `name` delimit, its root included, is `__proto__`. */
function hasProtoPart(name: string, open: number): boolean {
  if (name.slice(0, open) === '__proto__') {
    return true;
  }
  let at = open;
  while (name.charCodeAt(at) === 0x5b) {
    const close = name.indexOf(']', at + 1);
    if (close < 0) {
      return false;
    }
    if (name.slice(at + 1, close) === '__proto__') {
      return true;
    }
    at = close + 1;
  }
  return false;
}

function toValue(slot: Slot): unknown {
  if (typeof slot === 'string') {
    return slot;
  }
  if (slot instanceof Repeated) {
    return slot.values;
  }
  return slot.named === null ? toList(slot) : toMap(slot);
}

/** The bag as a map: its `named` object, turned into the result in place. */
function toMap(bag: Bag): Params {
  const map = (bag.named ?? Object.create(NOTHING)) as Params;
  for (const key in map) {
    map[key] = toValue(map[key] as Slot);
  }
  // Index keys come first in any object, whatever the order of insertion.
  bag.slots?.forEach((slot, position) => {
    map[bag.indexes?.[position] ?? position] = toValue(slot);
  });
  return map;
}

/** The bag as a list in index order: its `slots`, turned into the result in place if in order. */
function toList(bag: Bag): unknown[] {
  const slots: unknown[] = bag.slots ?? [];
  const indexes = bag.indexes;
  if (indexes === null || bag.ascending) {
    for (let position = 0; position < slots.length; position += 1) {
      slots[position] = toValue(slots[position] as Slot);
    }
    return slots;
  }
  return indexes
    .map((index, position) => ({ index, position }))
    .sort((a, b) => a.index - b.index)
    .map(({ position }) => toValue(slots[position] as Slot));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A urlencoded component as text: `+` is a space, `%XX` escapes are UTF-8 bytes, and a `%` that
 * starts none is kept as it is. Null when the bytes are not UTF-8. (`decodeURIComponent` would
 * throw on a stray `%`; catching that costs ten times the decoding.)
 */
function decodeComponent(text: string): string | null {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) {
    return spaced;
  }
  // A UTF-16 unit never takes more than 3 bytes of UTF-8.
  const bytes = Buffer.allocUnsafe(spaced.length * 3);
  let length = 0;
  for (let at = 0; at < spaced.length; at += 1) {
    const code = spaced.charCodeAt(at);
    if (
      code === 0x25 &&
      at + 2 < spaced.length &&
      isHexDigit(spaced.charCodeAt(at + 1)) &&
      isHexDigit(spaced.charCodeAt(at + 2))
    ) {
      bytes[length] =
        hexValue(spaced.charCodeAt(at + 1)) * 16 + hexValue(spaced.charCodeAt(at + 2));
      length += 1;
      at += 2;
    } else if (code < 0x80) {
      bytes[length] = code;
      length += 1;
    } else {
      const isPair = code >= 0xd800 && code <= 0xdbff && at + 1 < spaced.length;
      length += bytes.write(spaced.slice(at, isPair ? at + 2 : at + 1), length);
      at += isPair ? 1 : 0;
    }
  }
  try {
    return utf8.decode(bytes.subarray(0, length));
  } catch {
    return null;
  }
}

function isHexDigit(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x66);
}

function hexValue(code: number): number {
  return code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57;
}

/** A parameter's name for a message: shortened, and printable whatever it holds. */
export function displayName(name: string): string {
  const shown = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  return shown.toWellFormed();
}
