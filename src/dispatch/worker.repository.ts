import { Injectable } from '@nestjs/common';
import { select, Sql, write } from '../database/driver/sql';
import { marks } from '../database/driver/placeholders';
import {
  outboxRow,
  OutboxRow,
  OUTBOX_ROW_COLUMNS,
  PhoneRow,
  StoredOutboxRow,
} from './dispatch-rows';
import { DispatchSql } from './dispatch-sql';
import { abandonedHidden, removeHiddenPart } from '../messages/hidden-messages';

/** Abandoned hidden messages read per query. */
const HIDDEN_PER_QUERY = 100;

/** The `worker` table, and what a worker reads for its sweeps and listeners. */
@Injectable()
export class WorkerRepository extends DispatchSql {
  /** Registers the worker or records that it is alive (again, if a sweep had forgotten it). */
  async heartbeat(workerId: string, now: string): Promise<void> {
    await this.sql.run(
      write(
        'INSERT INTO worker (id, heartbeat_at, created_at) VALUES (?, ?, ?) ' +
          (this.mysql
            ? 'ON DUPLICATE KEY UPDATE heartbeat_at = VALUES(heartbeat_at), updated_at = VALUES(heartbeat_at)'
            : 'ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, updated_at = excluded.heartbeat_at'),
        [workerId, now, now],
      ),
    );
  }

  async unregisterWorker(workerId: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE id = ?', [workerId]));
  }

  async workers(): Promise<string[]> {
    const rows = await this.sql.run(select<{ id: string }>('SELECT id FROM worker'));
    return rows.map((row) => row.id);
  }

  async forgetWorkersExcept(workerId: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE id <> ?', [workerId]));
  }

  /** Hidden scheduled messages created before `before` (src/messages/hidden-messages.ts). */
  abandonedHidden(before: string): Promise<number[]> {
    return this.sql.run(abandonedHidden(before, HIDDEN_PER_QUERY));
  }

  /** Removes a bounded part of the hidden message `id`; whether it is gone. */
  removeHiddenPart(id: number): Promise<boolean> {
    return this.sql.transaction(removeHiddenPart(id));
  }

  /**
   * Removes up to `limit` idempotency keys expired at `now` (docs/idempotency.md), oldest first
   * through `ix_idempotency_key_expires_at`; how many went. Two statements, as neither engine
   * deletes with a LIMIT the other takes.
   */
  async removeExpiredKeys(now: string, limit: number): Promise<number> {
    const rows = await this.sql.run(
      select<{ id: number | string }>(
        'SELECT id FROM idempotency_key WHERE expires_at <= ? ORDER BY expires_at LIMIT ?',
        [now, limit],
      ),
    );
    if (rows.length === 0) {
      return 0;
    }
    const ids = rows.map((row) => Number(row.id));
    const { affected } = await this.sql.run(
      write(`DELETE FROM idempotency_key WHERE id IN (${marks(ids.length)})`, ids),
    );
    return affected;
  }

  /** The live worker (heartbeat at or after `since`) that started first. */
  async oldestWorker(since: string): Promise<string | null> {
    const rows = await this.sql.run(
      select<{ id: string }>(
        'SELECT id FROM worker WHERE heartbeat_at >= ? ORDER BY created_at, id LIMIT 1',
        [since],
      ),
    );
    return rows[0]?.id ?? null;
  }

  /** Forgets workers silent since before `before`; their claims are then orphans. */
  async forgetDeadWorkers(before: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE heartbeat_at < ?', [before]));
  }

  /** Rows in flight for a worker that is not in the `worker` table any more, locked. */
  *lockOrphans(limit: number): Sql<OutboxRow[]> {
    const rows = yield* select<StoredOutboxRow>(
      `SELECT ${OUTBOX_ROW_COLUMNS.map((column) => `o.${column}`).join(', ')} FROM outbox o ` +
        "WHERE o.state = 'sending' AND NOT EXISTS (SELECT 1 FROM worker w WHERE w.id = o.claimed_by) " +
        `ORDER BY o.id LIMIT ?${this.skipLocked}`,
      [limit],
    );
    return rows.map(outboxRow);
  }

  *adaptersOf(phoneIds: readonly number[]): Sql<Map<number, string>> {
    if (phoneIds.length === 0) {
      return new Map();
    }
    const rows = yield* select<{ id: number; adapter: string }>(
      `SELECT id, adapter FROM phone WHERE id IN (${marks(phoneIds.length)})`,
      [...phoneIds],
    );
    return new Map(rows.map((row) => [Number(row.id), row.adapter]));
  }

  /** Phones whose adapter listens for receipts and inbound messages, across users. */
  async phonesWithAdapters(adapters: readonly string[]): Promise<PhoneRow[]> {
    if (adapters.length === 0) {
      return [];
    }
    return this.sql.run(
      select<PhoneRow>(
        'SELECT id, id_user, adapter, adapter_data, priority, status FROM phone ' +
          `WHERE adapter IN (${marks(adapters.length)}) AND status <> 'disabled' ORDER BY id`,
        [...adapters],
      ),
    );
  }
}
