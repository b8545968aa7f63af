import { PhpError } from './php-values';

const BRACKET_PAIRS: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/** PCRE modifiers with a JavaScript equivalent; D (no newline before the end) is JavaScript's `$`. */
const FLAGS: Readonly<Record<string, string>> = { i: 'i', m: 'm', s: 's', u: 'u', D: '' };

/**
 * A PHP `preg_*` pattern (`/^0[67]/i`, `#\d+#`) as a JavaScript RegExp. PCRE constructs JavaScript
 * lacks are translated where the meaning is the same (`\A`, `\z`, `\Z`, `(?P<name>`); the others
 * (unknown modifiers, possessive quantifiers…) make a PhpError, as an invalid pattern makes
 * `preg_match` fail.
 */
export function compilePhpPattern(pattern: string): RegExp {
  const opening = pattern.trimStart().charAt(0);
  if (opening === '' || /[\p{L}\p{N}\\\s]/u.test(opening)) {
    throw new PhpError(`the pattern ${pattern} has no delimiter`);
  }
  const body = pattern.trimStart().slice(1);
  const closing = BRACKET_PAIRS[opening] ?? opening;
  const end = body.lastIndexOf(closing);
  if (end < 0) {
    throw new PhpError(`the pattern ${pattern} has no ending delimiter`);
  }
  let flags = '';
  for (const modifier of body.slice(end + 1).trimEnd()) {
    const flag = FLAGS[modifier];
    if (flag === undefined) {
      throw new PhpError(`the pattern modifier ${modifier} is not supported`);
    }
    flags += flags.includes(flag) ? '' : flag;
  }
  try {
    return new RegExp(translate(body.slice(0, end)), flags);
  } catch {
    throw new PhpError(`the pattern ${pattern} is not valid`);
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  A: '(?<![\\s\\S])',
  z: '(?![\\s\\S])',
  Z: '(?=\\n?(?![\\s\\S]))',
};

function translate(source: string): string {
  let result = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const character = source[i];
    if (character === '\\') {
      result += escape(source.charAt(i + 1), inClass);
      i += 1;
    } else if (!inClass && source.startsWith('(?P<', i)) {
      result += '(?<';
      i += 3;
    } else if (!inClass && source.startsWith('(?P=', i)) {
      const close = source.indexOf(')', i);
      result += `\\k<${source.slice(i + 4, close < 0 ? undefined : close)}>`;
      i = close < 0 ? source.length : close;
    } else {
      inClass = character === '[' ? true : character === ']' ? false : inClass;
      result += character;
    }
  }
  return result;
}

/** Characters JavaScript lets a backslash escape in a Unicode pattern. */
const ESCAPABLE = '^$\\.*+?()[]{}|/-';

/** PCRE lets a backslash escape any symbol; JavaScript refuses most: they stand for themselves. */
function escape(next: string, inClass: boolean): string {
  if (!inClass && ESCAPES[next] !== undefined) {
    return ESCAPES[next];
  }
  if (/[\p{L}\p{N}]/u.test(next) || ESCAPABLE.includes(next)) {
    return `\\${next}`;
  }
  return next;
}
