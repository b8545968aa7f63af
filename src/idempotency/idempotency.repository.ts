import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DriverSql, InsertTree } from '../database/driver/group-commit';
import { DriverRunner } from '../database/driver/runner';
import { write } from '../database/driver/sql';

/** A key as kept: the request that used it and its answer. */
export interface KeptAnswer {
  fingerprint: string;
  status: number;
  /** The envelope, as JSON. */
  answer: string;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  expiresAt: string;
}

/** What a key row is written with, but the answer, known once the message has its id. */
export interface NewKey {
  userId: number;
  key: string;
  fingerprint: string;
  status: number;
  createdAt: string;
  expiresAt: string;
}

const INSERT =
  'INSERT INTO idempotency_key (id_user, idem_key, fingerprint, status, answer, created_at, ' +
  'expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)';

/**
 * The `idempotency_key` table. Its row is written by the caller's own insert (`row`), in the
 * transaction that writes what the key's request created; the unique `(id_user, idem_key)`
 * index refuses a second one. Lookups run on the driver, as the insert does.
 */
@Injectable()
export class IdempotencyRepository {
  private readonly sql: DriverSql;
  private readonly runner: DriverRunner;

  constructor(dataSource: DataSource) {
    this.sql = DriverSql.for(dataSource);
    this.runner = DriverRunner.for(dataSource);
  }

  /** The key's row, for the insert of the message whose answer it keeps. */
  row(key: NewKey, answer: string): InsertTree {
    return {
      sql: INSERT,
      parameters: [
        key.userId,
        key.key,
        key.fingerprint,
        key.status,
        answer,
        key.createdAt,
        key.expiresAt,
      ],
    };
  }

  /** The user's key, expired or not; served by the unique index. */
  async find(userId: number, key: string): Promise<KeptAnswer | undefined> {
    const [row] = await this.sql.select<{
      fingerprint: string;
      status: number | string;
      answer: string;
      expires_at: string;
    }>(
      'SELECT fingerprint, status, answer, expires_at FROM idempotency_key ' +
        'WHERE id_user = ? AND idem_key = ?',
      [userId, key],
    );
    return (
      row && {
        fingerprint: row.fingerprint,
        status: Number(row.status),
        answer: row.answer,
        expiresAt: String(row.expires_at).slice(0, 19),
      }
    );
  }

  /** Frees the user's key if it expired before `now` (UTC), for the request that reuses it. */
  async removeExpired(userId: number, key: string, now: string): Promise<void> {
    await this.runner.run(
      write('DELETE FROM idempotency_key WHERE id_user = ? AND idem_key = ? AND expires_at <= ?', [
        userId,
        key,
        now,
      ]),
    );
  }
}
