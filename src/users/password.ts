import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** Code points a password may have (docs/api.md#passwords). */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

/** scrypt's cost: at least OWASP's N = 2^15, r = 8, p = 1; stored with each hash, so it can rise. */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;

/** Why a password cannot be used, to follow its name (`… must have …`); null when it can. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    return `must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not ${length}.`;
  }
  return null;
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, COST.N, COST.r, COST.p, KEY_BYTES);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join(
    '$',
  );
}

/**
 * Whether `password` is the one `stored` was made from, compared in constant time. With no
 * stored hash (an unknown user, a user without a password) the same work is done against a
 * throw-away hash, so that the answer takes as long either way.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? DECOY).split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt') {
    return false;
  }
  const expected = Buffer.from(hash, 'base64');
  const derived = await derive(
    password,
    Buffer.from(salt, 'base64'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return (
    stored !== null && derived.length === expected.length && timingSafeEqual(derived, expected)
  );
}

function derive(
  password: string,
  salt: Buffer,
  N: number,
  r: number,
  p: number,
  length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // scrypt needs 128 * N * r bytes; Node's default ceiling (32 MiB) is exactly N = 2^15's need.
    const maxmem = 256 * N * r * p;
    scrypt(password, salt, length, { N, r, p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** A hash no password is checked against for real: it only costs what a real check costs. */
const DECOY = [
  'scrypt',
  COST.N,
  COST.r,
  COST.p,
  Buffer.alloc(SALT_BYTES).toString('base64'),
  Buffer.alloc(KEY_BYTES).toString('base64'),
].join('$');
