import { ApiError } from '../errors/api-error';
import { Params } from './parse';
import { displayName, MAX_BRACKET_DEPTH } from './query-string';

/**
 * Checks a request's parameters once they are parsed, whatever their source, before any service
 * reads them: every name and text is well-formed Unicode, and no value is nested deeper than
 * the bracket syntax allows. JSON is where both can go wrong: `"\ud800"` is valid JSON but a
 * lone UTF-16 surrogate, which neither UTF-8, URL encoding nor a database column can hold.
 * Errors name the parameter as a form would (`adapter_data[account_sid]`).
 */
export function checkParams(params: Params): void {
  const path: string[] = [];
  for (const key of Object.keys(params)) {
    path.push(key);
    checkName(key, path);
    checkValue(params[key], path);
    path.pop();
  }
}

/**
 * Checks JSON that a parameter holds as text (`numbers[0][data]`, `adapter_data` given as a
 * string), once parsed: its escapes (`\\ud800`) may spell what the parameter itself could not.
 * Iterative, so that deeply nested JSON cannot exhaust the stack.
 */
export function checkParsedJson(value: unknown, name: string): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      if (!current.isWellFormed()) {
        throw ApiError.invalid(
          `${displayName(name)} : the JSON text is not valid Unicode (it holds a lone UTF-16 surrogate).`,
        );
      }
    } else if (Array.isArray(current)) {
      pending.push(...(current as unknown[]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        pending.push(key, item);
      }
    }
  }
}

function checkValue(value: unknown, path: string[]): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) {
      throw ApiError.invalid(
        `${nameOf(path)} : the text is not valid Unicode (it holds a lone UTF-16 surrogate).`,
      );
    }
    return;
  }
  if (value === null || typeof value !== 'object') {
    return;
  }
  // `path` holds the name and one entry per bracket: a value at depth N has N brackets.
  if (path.length > MAX_BRACKET_DEPTH) {
    throw ApiError.invalid(
      `${nameOf(path)} : values are nested deeper than ${MAX_BRACKET_DEPTH} levels.`,
    );
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => {
      path.push(String(index));
      checkValue(item, path);
      path.pop();
    });
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    path.push(key);
    checkName(key, path);
    checkValue(record[key], path);
    path.pop();
  }
}

function checkName(key: string, path: string[]): void {
  if (!key.isWellFormed()) {
    throw ApiError.invalid(
      `${nameOf(path)} : the parameter name is not valid Unicode (it holds a lone UTF-16 surrogate).`,
    );
  }
}

/** `['numbers', '0', 'data']` as `numbers[0][data]`. */
function nameOf(path: string[]): string {
  const [root, ...keys] = path;
  return displayName(root + keys.map((key) => `[${key}]`).join(''));
}
