import { Filter } from './twig-internals';
import { MAX_VALUE_WEIGHT, printable, TemplateProblem, tooLarge, weightOf } from './twig-bounds';

/**
 * The filters whose twig.js version differs from Twig's PHP one or runs unbounded: replace,
 * title and trim written again as PHP does them; format, number_format, round and join bounded
 * before twig.js's own version runs.
 */

/** Width and precision of `format` and decimals of `number_format` and `round`. */
const MAX_DIGITS = 100;
/** Characters given to `trim`. */
const MAX_TRIM_CHARACTERS = 100;

/** These filters, built on twig.js's own `filters`. */
export function phpFilters(twigFilters: Readonly<Record<string, Filter>>): Record<string, Filter> {
  return {
    format: (value, params) => format(twigFilters, value, params),
    join: (value, params) => join(twigFilters, value, params),
    number_format: (value, params) => numberFormat(twigFilters, value, params),
    replace,
    round: (value, params) => round(twigFilters, value, params),
    title,
    trim,
  };
}

function parameter(params: unknown[] | false | undefined, index: number): unknown {
  return Array.isArray(params) ? params[index] : undefined;
}

/** format: sprintf, refused before it runs when it would pad or repeat beyond the size limit. */
function format(
  twigFilters: Readonly<Record<string, Filter>>,
  value: unknown,
  params: unknown[] | false | undefined,
): unknown {
  if (typeof value === 'string') {
    const args = Array.isArray(params) ? params : [];
    let estimate = value.length;
    let next = 0;
    for (const spec of value.matchAll(SPRINTF_SPECS)) {
      if (spec[0] === '%%') {
        continue;
      }
      const width = Number(spec[3] ?? 0);
      const precision = Number(spec[4] || 0);
      if (width > MAX_DIGITS || precision > MAX_DIGITS) {
        throw new TemplateProblem(`format widths and precisions go up to ${MAX_DIGITS}`);
      }
      const arg = spec[1] === undefined ? args[next++] : args[Number(spec[1]) - 1];
      estimate += Math.max(width, precision) + weightOf(arg, new Map(), new Set()) + 30;
    }
    if (estimate > MAX_VALUE_WEIGHT) {
      tooLarge();
    }
  }
  return twigFilters.format(value, params);
}

/** The conversion specifications of locutus's sprintf, which twig.js's format uses. */
const SPRINTF_SPECS = /%%|%(?:(\d+)\$)?((?:[-+#0 ]|'[\s\S])*)(\d+)?(?:\.(\d*))?([\s\S])/g;

function numberFormat(
  twigFilters: Readonly<Record<string, Filter>>,
  value: unknown,
  params: unknown[] | false | undefined,
): unknown {
  if (Math.abs(Number(parameter(params, 0) ?? 0)) > MAX_DIGITS) {
    throw new TemplateProblem(`number_format shows at most ${MAX_DIGITS} decimals`);
  }
  return twigFilters.number_format(value, params);
}

function round(
  twigFilters: Readonly<Record<string, Filter>>,
  value: unknown,
  params: unknown[] | false | undefined,
): unknown {
  const precision = parameter(params, 0);
  const method = parameter(params, 1) ?? 'common';
  if (Math.abs(Number(precision ?? 0)) > MAX_DIGITS) {
    throw new TemplateProblem(`round keeps at most ${MAX_DIGITS} decimals`);
  }
  if (method !== 'common' && method !== 'ceil' && method !== 'floor') {
    throw new TemplateProblem("round's method is common, ceil or floor");
  }
  return twigFilters.round(value, params);
}

/** join: refused before it runs when the glue repeated between the items would be too long. */
function join(
  twigFilters: Readonly<Record<string, Filter>>,
  value: unknown,
  params: unknown[] | false | undefined,
): unknown {
  const glue = parameter(params, 0);
  if (typeof glue === 'string' && value !== null && typeof value === 'object') {
    const items = Object.keys(value).length;
    if (glue.length * items + weightOf(value, new Map(), new Set()) > MAX_VALUE_WEIGHT) {
      tooLarge();
    }
  }
  return twigFilters.join(value, params);
}

/**
 * replace: PHP's strtr, as Twig's replace is (longest keys first, replaced text never replaced
 * again); twig.js's own version replaces pair after pair and reads `$&` in replacements.
 */
function replace(value: unknown, params: unknown[] | false | undefined): unknown {
  if (value === undefined || value === null) {
    return undefined;
  }
  const pairs = parameter(params, 0);
  if (pairs === null || typeof pairs !== 'object') {
    throw new TemplateProblem('replace needs a mapping, as in replace({"%name%": contact.name})');
  }
  const byFirstCharacter = new Map<string, string[]>();
  for (const key of Object.keys(pairs)) {
    if (key !== '' && key !== '_keys') {
      const keys = byFirstCharacter.get(key[0]) ?? [];
      keys.push(key);
      byFirstCharacter.set(key[0], keys);
    }
  }
  for (const keys of byFirstCharacter.values()) {
    keys.sort((left, right) => right.length - left.length);
  }
  const text = printable(value);
  let result = '';
  let index = 0;
  while (index < text.length) {
    const key = byFirstCharacter
      .get(text[index])
      ?.find((candidate) => text.startsWith(candidate, index));
    if (key === undefined) {
      result += text[index];
      index += 1;
    } else {
      result += printable((pairs as Record<string, unknown>)[key]);
      index += key.length;
    }
    if (result.length > MAX_VALUE_WEIGHT) {
      tooLarge();
    }
  }
  return result;
}

/** title: Twig's (mb_convert_case), which also capitalises accented and hyphenated words. */
function title(value: unknown): unknown {
  if (typeof value !== 'string') {
    return value;
  }
  return value
    .toLowerCase()
    .replace(/(^|[^\p{L}\p{M}\p{N}'’])(\p{L})/gu, (_match, before: string, letter: string) => {
      return before + letter.toUpperCase();
    });
}

const WHITESPACE = new Set([...' \t\n\r\0\x0B']);

/** trim: Twig's (PHP's trim), with its optional characters and side. */
function trim(value: unknown, params: unknown[] | false | undefined): unknown {
  if (value === undefined || value === null) {
    return undefined;
  }
  const characters = parameter(params, 0);
  const side = parameter(params, 1) ?? 'both';
  if (typeof characters === 'string' && characters.length > MAX_TRIM_CHARACTERS) {
    throw new TemplateProblem(`trim takes at most ${MAX_TRIM_CHARACTERS} characters`);
  }
  if (side !== 'both' && side !== 'left' && side !== 'right') {
    throw new TemplateProblem("trim's side is both, left or right");
  }
  const strip =
    characters === undefined || characters === null ? WHITESPACE : new Set(printable(characters));
  const text = printable(value);
  let start = 0;
  let end = text.length;
  while (side !== 'right' && start < end && strip.has(text[start])) {
    start += 1;
  }
  while (side !== 'left' && end > start && strip.has(text[end - 1])) {
    end -= 1;
  }
  return text.slice(start, end);
}
