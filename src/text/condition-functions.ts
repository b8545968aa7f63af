import { phpStrtotime } from '../common/time/php-date';
import { DateTime } from 'luxon';
import {
  entriesOf,
  kindOf,
  PhpDate,
  PhpError,
  toBool,
  toInteger,
  toNumber,
  toText,
} from './php-values';

/** What functions may know of the evaluation: the time, in the service zone. */
export interface FunctionScope {
  now(): DateTime;
}

type ConditionFunction = (scope: FunctionScope, ...args: unknown[]) => unknown;

/**
 * The functions RaspiSMS adds to ExpressionLanguage for conditional groups
 * (docs/dispatch.md#texts), with PHP's meanings. The object has no prototype, so that
 * `constructor()` is not a function.
 */
export const CONDITION_FUNCTIONS: Readonly<Record<string, ConditionFunction>> = Object.assign(
  Object.create(null) as Record<string, ConditionFunction>,
  {
    /** RaspiSMS neutralises constant(): it would read the server's constants. */
    constant: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('constant', args, 1, 1);
      return null;
    },
    exists: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('exists', args, 1, 1);
      return args[0] !== null && args[0] !== undefined;
    },
    is_birthday: (scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('is_birthday', args, 1, 1);
      const date = args[0];
      if (!(date instanceof PhpDate)) {
        throw new PhpError('is_birthday() needs a date, as date() or date_from_format() make');
      }
      const today = scope.now();
      const day = date.time.setZone(today.zone);
      return day.month === today.month && day.day === today.day;
    },
    lower: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('lower', args, 1, 1);
      return toText(args[0]).toLowerCase();
    },
    upper: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('upper', args, 1, 1);
      return toText(args[0]).toUpperCase();
    },
    substr: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('substr', args, 2, 3);
      return substring(
        toText(args[0]),
        toInteger(args[1]),
        args[2] === undefined || args[2] === null ? null : toInteger(args[2]),
      );
    },
    strlen: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('strlen', args, 1, 1);
      return [...toText(args[0])].length;
    },
    abs: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('abs', args, 1, 1);
      return Math.abs(toNumber(args[0]));
    },
    date: (scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('date', args, 0, 1);
      return createDate(args.length === 0 ? 'now' : toText(args[0]), scope.now());
    },
    date_from_format: (scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('date_from_format', args, 2, 2);
      return dateFromFormat(toText(args[0]), toText(args[1]), scope.now());
    },
    intval: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('intval', args, 1, 2);
      const base = args.length > 1 ? toInteger(args[1]) : 10;
      if (base !== 10 && typeof args[0] === 'string') {
        const parsed = parseInt(args[0].trim(), base);
        return Number.isNaN(parsed) ? 0 : parsed;
      }
      return toInteger(args[0]);
    },
    boolval: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('boolval', args, 1, 1);
      return toBool(args[0]);
    },
    count: (_scope: FunctionScope, ...args: unknown[]) => {
      expectArguments('count', args, 1, 1);
      const kind = kindOf(args[0]);
      if (kind !== 'list' && kind !== 'hash') {
        throw new PhpError('count() needs a list or a hash');
      }
      return entriesOf(args[0]).length;
    },
  },
);

function expectArguments(name: string, args: unknown[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw new PhpError(`${name}() takes ${expected} arguments, not ${args.length}`);
  }
}

/** mb_substr: by characters, a negative start counting from the end, a negative length too. */
function substring(text: string, start: number, length: number | null): string {
  const characters = [...text];
  const from = start < 0 ? Math.max(characters.length + start, 0) : start;
  if (from > characters.length) {
    return '';
  }
  let to = characters.length;
  if (length !== null) {
    to = length < 0 ? characters.length + length : Math.min(from + length, characters.length);
  }
  return to <= from ? '' : characters.slice(from, to).join('');
}

/**
 * date_create(): the text read as PHP reads dates (`1990-05-12`, `12/05/1990`, `now`,
 * `+1 day`), as a wall time of the service zone; false when PHP cannot read it.
 */
function createDate(text: string, now: DateTime): PhpDate | false {
  const time = phpStrtotime(text, now);
  return time === null ? false : new PhpDate(time);
}

type Unit = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

/** PHP's date format characters that date_from_format reads, as Luxon tokens and their unit. */
const FORMAT_TOKENS: Readonly<Record<string, [string, Unit | null]>> = {
  d: ['d', 'day'],
  j: ['d', 'day'],
  D: ['EEE', null],
  l: ['EEEE', null],
  m: ['M', 'month'],
  n: ['M', 'month'],
  M: ['MMM', 'month'],
  F: ['MMMM', 'month'],
  Y: ['yyyy', 'year'],
  y: ['yy', 'year'],
  a: ['a', null],
  A: ['a', null],
  g: ['h', 'hour'],
  h: ['h', 'hour'],
  G: ['H', 'hour'],
  H: ['H', 'hour'],
  i: ['mm', 'minute'],
  s: ['ss', 'second'],
};

const UNITS: Unit[] = ['year', 'month', 'day', 'hour', 'minute', 'second'];

/**
 * DateTime::createFromFormat(): the text read with a PHP date format (`d/m/Y`). As in PHP,
 * units the format does not give take the current time's values, or the Unix epoch's after a
 * `!` or `|`. False when the text does not fit the format.
 */
function dateFromFormat(format: string, text: string, now: DateTime): PhpDate | false {
  let luxonFormat = '';
  let reset = false;
  const given = new Set<Unit>();
  for (let i = 0; i < format.length; i += 1) {
    const character = format[i];
    if (character === '!' || character === '|') {
      reset = true;
    } else if (character === '\\') {
      luxonFormat += quote(format.charAt(i + 1));
      i += 1;
    } else if (/[a-zA-Z]/.test(character)) {
      const token = Object.prototype.hasOwnProperty.call(FORMAT_TOKENS, character)
        ? FORMAT_TOKENS[character]
        : undefined;
      if (token === undefined) {
        throw new PhpError(`date_from_format() does not read the format character ${character}`);
      }
      luxonFormat += token[0];
      if (token[1] !== null) {
        given.add(token[1]);
      }
    } else {
      luxonFormat += quote(character);
    }
  }
  const parsed = DateTime.fromFormat(text, luxonFormat, { zone: now.zone, locale: 'en' });
  if (!parsed.isValid) {
    return false;
  }
  const epoch = DateTime.fromMillis(0, { zone: 'UTC' });
  const fields = Object.fromEntries(
    UNITS.map((unit) => [unit, given.has(unit) ? parsed[unit] : (reset ? epoch : now)[unit]]),
  );
  const time = DateTime.fromObject(fields, { zone: now.zone });
  return time.isValid ? new PhpDate(time) : false;
}

function quote(literal: string): string {
  return literal === "'" ? "''" : `'${literal}'`;
}
