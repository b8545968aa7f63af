/** The wait before the first retry. */
export const FIRST_RETRY_MS = 10_000;

/** The longest wait between two attempts. */
export const MAX_RETRY_MS = 3_600_000;

/** Each wait is its nominal value times a factor in [1 - JITTER, 1 + JITTER). */
export const JITTER = 0.2;

/**
 * How long to wait after the `attempts`-th failed attempt: 10 s, then doubling up to 1 h,
 * spread by ±20 % so that the deliveries of a burst that failed together do not come back
 * together. `random` is in [0, 1), as Math.random.
 */
export function retryDelayMs(attempts: number, random: number): number {
  const nominal = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.min(MAX_RETRY_MS, Math.round(nominal * (1 - JITTER + 2 * JITTER * random)));
}
