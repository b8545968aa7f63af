import { ApiError } from '../errors/api-error';

export type Params = Record<string, unknown>;

const MAX_ID = 2_147_483_647;

/** Absent, null and `""` all mean that a parameter was not given. */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** `a is required.`, `a and b are required.`, `a, b and c are required.` */
export function requiredMessage(names: readonly string[]): string {
  return `${listed(names)} ${names.length === 1 ? 'is' : 'are'} required.`;
}

/** `a`, `a and b`, `a, b and c`: names in a sentence. */
export function listed(names: readonly string[]): string {
  return names.length <= 1
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** A non-negative decimal integer; absent or empty is `undefined`; anything else is refused. */
export function parseId(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_ID) {
    return value;
  }
  if (typeof value === 'string' && /^\d+$/.test(value) && Number(value) <= MAX_ID) {
    return Number(value);
  }
  throw ApiError.invalid(`${name} must be a non-negative integer, got ${describe(value)}.`);
}

const TRUE_VALUES = new Set(['1', 'true', 'on', 'yes']);
const FALSE_VALUES = new Set(['', '0', 'false', 'off', 'no']);

/**
 * docs/api-choices.md#reading-parameters: `1 true on yes` / absent, `"" 0 false off no`; anything
 * else is refused.
 */
export function parseBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === null || typeof value === 'boolean') {
    return value === true;
  }
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string') {
    const normalised = text.trim().toLowerCase();
    if (TRUE_VALUES.has(normalised)) {
      return true;
    }
    if (FALSE_VALUES.has(normalised)) {
      return false;
    }
  }
  throw ApiError.invalid(
    `${name} must be a boolean (1, true, on, yes, 0, false, off or no), got ${describe(value)}.`,
  );
}

/** An optional string; numbers from JSON bodies are taken as their text. */
export function parseOptionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  throw ApiError.invalid(`${name} must be a string.`);
}

/**
 * A list parameter: an array, a bracket map with numeric keys (`a[3]=x&a[7]=y`, in key order) or a
 * single value, which is a one-element list (docs/api-choices.md#reading-parameters). Absent or
 * empty is the empty list.
 */
export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') {
    return [];
  }
  if (Array.isArray(value)) {
    return value;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
    }
  }
  return [value];
}

/** A list of ids, each checked as `parseId` does, named `name[i]` in errors. */
export function parseIdList(value: unknown, name: string): number[] {
  return asList(value).map((item, index) => {
    const id = parseId(item, `${name}[${index}]`);
    if (id === undefined) {
      throw ApiError.invalid(`${name}[${index}] must be a non-negative integer, got "".`);
    }
    return id;
  });
}

function describe(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  if (typeof value === 'object' && value !== null) {
    return 'an object';
  }
  return String(value);
}
