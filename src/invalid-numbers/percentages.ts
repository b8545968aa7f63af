import { ApiError } from '../common/errors/api-error';

/*
 * get_invalid_numbers shows percentages rounded to two decimals and compares the thresholds with
 * those rounded values, as displayed. Everything is done on integers (hundredths of a percent) so
 * that SQLite's floating point and MariaDB's decimals, whose division keeps only four more digits,
 * can never disagree on a row near a threshold.
 */

/** A percentage threshold as the caller wrote it, and the smallest hundredths it admits. */
export interface PercentThreshold {
  text: string;
  /** ceil(100 × value): a rounded percentage of R hundredths passes when R ≥ this. */
  minHundredths: number;
}

const DECIMAL = /^(\d*)(?:\.(\d*))?$/;

/** A number from 0 to 100 in plain decimal notation (`12`, `12.5`, `.5`), read exactly. */
export function parsePercent(value: unknown, name: string): PercentThreshold {
  const match = typeof value === 'string' ? DECIMAL.exec(value) : null;
  const whole = match?.[1] ?? '';
  const fraction = match?.[2] ?? '';
  if (!match || whole.length + fraction.length === 0) {
    throw ApiError.invalid(`${name} must be a number from 0 to 100, got ${describe(value)}.`);
  }
  const hundredths = Number(whole || '0') * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
  const beyondHundredths = /[1-9]/.test(fraction.slice(2));
  if (hundredths > 10_000 || (hundredths === 10_000 && beyondHundredths)) {
    throw ApiError.invalid(`${name} must be a number from 0 to 100, got ${describe(value)}.`);
  }
  return { text: value as string, minHundredths: hundredths + (beyondHundredths ? 1 : 0) };
}

/** `part` out of `total` in percent, rounded half up to two decimals. */
export function roundedPercentage(part: number, total: number): number {
  return roundedHundredths(part, total) / 100;
}

/**
 * round(10000 × part / total), half up, is floor((20000 × part + total) / (2 × total)); the
 * repository's HAVING uses the same identity: it passes `minHundredths` iff
 * 20000 × part + total ≥ 2 × minHundredths × total.
 */
function roundedHundredths(part: number, total: number): number {
  const numerator = 20_000 * part + total;
  const denominator = 2 * total;
  return (numerator - (numerator % denominator)) / denominator;
}

function describe(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  return typeof value === 'object' && value !== null ? 'an object' : String(value);
}
