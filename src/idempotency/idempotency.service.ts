import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Envelope, Replayed, successEnvelope } from '../common/http/envelope';
import { nowUtc, utcString } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { InsertTree } from '../database/driver/group-commit';
import { isLockConflict, isUniqueViolation } from '../database/sql-errors';
import { IdempotencyRepository, KeptAnswer } from './idempotency.repository';
import { IDEMPOTENCY_HEADER } from './idempotency.params';

/** A request's idempotency key and the fingerprint of what it asks (idempotency.fingerprint.ts). */
export interface KeyedRequest {
  key: string;
  fingerprint: string;
}

/** The key's row to write with the new entry, given the entry's id; none without a key. */
export type KeepAnswer = ((id: number) => InsertTree) | undefined;

/**
 * Tries of one creation that lost a race for a lock (or, with a key, found it held by a row
 * that went meanwhile), the waits between them growing by this much each time: about half a
 * second in all before a keyed request answers that the first one is still being processed.
 */
const TRIES = 5;
const WAIT_STEP_MS = 50;

/**
 * Creations that run once per idempotency key (docs/idempotency.md). The key's row is written
 * by the creation itself, in the transaction that writes the entry, and the unique index on
 * (user, key) refuses a second one: whatever the number of processes, only one request with a
 * key commits, and the others find its row and replay its answer. Nothing is kept for a request
 * that fails: its transaction, key row included, is undone.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly repository: IdempotencyRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * Runs `create` (which writes the row `keep` gives in its transaction), answering `status`
   * and the id it returns; with `keyed`, a key already used gives its kept answer instead
   * (Replayed), or refuses a different request. A creation that lost a race for a lock did
   * nothing and is tried again, with or without a key.
   */
  async once(
    userId: number,
    keyed: KeyedRequest | undefined,
    status: number,
    create: (keep: KeepAnswer) => Promise<number>,
  ): Promise<number | Replayed> {
    for (let attempt = 1; ; attempt++) {
      const now = Date.now();
      const key = keyed && {
        userId,
        ...keyed,
        status,
        createdAt: utcString(new Date(now)),
        expiresAt: utcString(new Date(now + this.config.idempotencyMs)),
      };
      try {
        return await create(
          key && ((id) => this.repository.row(key, JSON.stringify(successEnvelope(id)))),
        );
      } catch (error) {
        const lockConflict = isLockConflict(error);
        if (!lockConflict && !(keyed && isUniqueViolation(error))) {
          throw error;
        }
        if (keyed && !lockConflict) {
          const kept = await this.kept(userId, keyed);
          if (kept) {
            return kept;
          }
        }
        if (attempt === TRIES) {
          throw keyed ? stillProcessing() : error;
        }
        await sleep(WAIT_STEP_MS * attempt);
      }
    }
  }

  /**
   * The answer kept for the key, when it is alive: another request with it committed first. An
   * expired one is removed, so that the next try can use the key again.
   */
  private async kept(userId: number, keyed: KeyedRequest): Promise<Replayed | undefined> {
    const kept: KeptAnswer | undefined = await this.repository.find(userId, keyed.key);
    const now = nowUtc();
    if (kept === undefined) {
      return undefined;
    }
    if (kept.expiresAt <= now) {
      await this.repository.removeExpired(userId, keyed.key, now);
      return undefined;
    }
    if (kept.fingerprint !== keyed.fingerprint) {
      throw new ApiError(
        ErrorCode.INVALID_PARAMETER,
        `${IDEMPOTENCY_HEADER} : this key was used for a different request (another operation ` +
          'or other parameters) in the last ' +
          `${this.config.idempotencyMs / 3_600_000} hours; send a new key for a new request.`,
        'refused',
      );
    }
    return new Replayed(kept.status, JSON.parse(kept.answer) as Envelope);
  }
}

function stillProcessing(): ApiError {
  return new ApiError(
    ErrorCode.CANNOT_CREATE,
    `${IDEMPOTENCY_HEADER} : the first request with this key is still being processed; ` +
      'send it again in a moment to get its answer.',
    'conflict',
  );
}
