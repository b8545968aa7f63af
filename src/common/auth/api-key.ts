import { createHash, randomBytes } from 'node:crypto';

/** 32 lowercase hex characters from 16 random bytes (docs/api-choices.md#api-keys). */
export function generateApiKey(): string {
  return randomBytes(16).toString('hex');
}

/**
 * A phone's callback token: 32 URL-safe characters of 24 random bytes, as hard to guess as an
 * API key, which the callback URLs smsgw builds for the phone carry instead of one.
 */
export function generateCallbackToken(): string {
  return randomBytes(24).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return /^[0-9a-f]{32}$/.test(key);
}

/** Keys are stored only as this hash, looked up through a unique index. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
