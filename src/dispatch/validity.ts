import { utcDate, utcString, utcToZone } from '../common/time/datetime';

/**
 * A message's validity (docs/dispatch.md#validity): the moment after which none of its
 * recipients is handed to a provider any more, kept on each outbox row as `expires_at`.
 */

/** How the error of a recipient whose message expired before it could be sent starts. */
export const MESSAGE_EXPIRED = 'The message expired before it could be sent';

/** When a message due at `at` (UTC) with `validity` minutes expires; null: never. */
export function expiryOf(at: string, validity: number | null): string | null {
  return validity === null ? null : utcString(new Date(utcDate(at).getTime() + validity * 60_000));
}

/** `expires_at` as epoch ms; Infinity for a row that never expires. */
export function expiryMs(expiresAt: string | null): number {
  return expiresAt === null ? Number.POSITIVE_INFINITY : utcDate(String(expiresAt)).getTime();
}

/**
 * The error of a recipient whose message expired at `expiresAt` (UTC), shown in the service time
 * zone; `before`: what it would have waited for, which comes after.
 */
export function expiredReason(expiresAt: string, timeZone: string, before?: string): string {
  const end = utcToZone(String(expiresAt).slice(0, 19), timeZone) ?? '';
  return before === undefined
    ? `${MESSAGE_EXPIRED}: its validity ended at ${end}.`
    : `${MESSAGE_EXPIRED}: its validity ends at ${end}, before ${before}.`;
}

/** Whole seconds left until `expiresAt` at `nowMs`, rounded down; null: no limit. */
export function secondsLeft(expiresAt: string | null, nowMs: number): number | null {
  return expiresAt === null ? null : Math.max(0, Math.floor((expiryMs(expiresAt) - nowMs) / 1000));
}
