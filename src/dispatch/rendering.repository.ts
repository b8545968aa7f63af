import { Injectable } from '@nestjs/common';
import { select, Sql, write } from '../database/driver/sql';
import { marks } from '../database/driver/placeholders';
import { CANDIDATES_PER_ROW, DispatchSql, PRIORITIES } from './dispatch-sql';

/** A row whose text is a template, as the render reads it. */
export interface UnrenderedRow {
  id: number;
  text: string;
  /** Read for whether it is null only: a row with medias may render to an empty text. */
  media_ids: string | null;
  render_input: string | null;
}

/** A render's outcome for one row: its text, or why it has none. */
export type RenderedRow = { id: number } & ({ text: string } | { reason: string });

/** The rendering's SQL: rows queued `unrendered`, leased, then stored rendered. */
@Injectable()
export class RenderingRepository extends DispatchSql {
  /**
   * Up to `limit` rows whose text is still a template, high-priority ones first (each priority a
   * range of `outbox (state, priority, next_attempt_at)`), then oldest first, outside any
   * transaction. On
   * MySQL they are first leased to `workerId` (`claimed_by`), so that workers render different
   * rows; a lease of a worker that stopped is free again once the sweep forgets the worker.
   * Two renders of a row are harmless: only the first one stored counts (`storeRendered`).
   */
  leaseUnrendered(workerId: string, limit: number): Promise<UnrenderedRow[]> {
    return this.sql.run(this.lease(workerId, limit));
  }

  private *lease(workerId: string, limit: number): Sql<UnrenderedRow[]> {
    const rows: UnrenderedRow[] = [];
    for (const priority of PRIORITIES) {
      if (rows.length < limit) {
        rows.push(...(yield* this.leaseOf(priority, workerId, limit - rows.length)));
      }
    }
    return rows;
  }

  private *leaseOf(priority: number, workerId: string, limit: number): Sql<UnrenderedRow[]> {
    const columns = 'id, text, media_ids, render_input';
    if (!this.mysql) {
      return yield* select<UnrenderedRow>(
        `SELECT ${columns} FROM outbox WHERE state = 'unrendered' AND priority = ? ` +
          'ORDER BY next_attempt_at, id LIMIT ?',
        [priority, limit],
      );
    }
    const free =
      "state = 'unrendered' AND priority = ? AND (claimed_by IS NULL OR claimed_by = ? OR " +
      'NOT EXISTS (SELECT 1 FROM worker w WHERE w.id = outbox.claimed_by))';
    // Read without locks, as lockReady does (a locking scan would wait for the rows of a
    // campaign another worker is still expanding), and more than wanted: other workers may be
    // leasing some of them right now.
    const candidates = yield* select<{ id: number }>(
      `SELECT id FROM outbox WHERE ${free} ORDER BY next_attempt_at, id LIMIT ?`,
      [priority, workerId, limit * CANDIDATES_PER_ROW],
    );
    if (candidates.length === 0) {
      return [];
    }
    const ids = candidates.map((candidate) => candidate.id);
    yield* write(
      `UPDATE outbox SET claimed_by = ? WHERE id IN (${marks(ids.length)}) AND ${free} ` +
        'ORDER BY next_attempt_at, id LIMIT ?',
      [workerId, ...ids, priority, workerId, limit],
    );
    return yield* select<UnrenderedRow>(
      `SELECT ${columns} FROM outbox WHERE id IN (${marks(ids.length)}) ` +
        "AND state = 'unrendered' AND claimed_by = ? ORDER BY next_attempt_at, id",
      [...ids, workerId],
    );
  }

  /**
   * Stores renders in one statement: each row becomes `queued` with its text, or `rejected` with
   * the reason. Rows already rendered (by another worker) are left as they are.
   */
  async storeRendered(rows: readonly RenderedRow[], now: string): Promise<void> {
    if (rows.length === 0) {
      return;
    }
    await this.sql.run(
      this.updateOutbox(
        ['id', 'state', 'text', 'error'],
        rows.map((row) =>
          'text' in row
            ? [row.id, 'queued', row.text, null]
            : [row.id, 'rejected', null, row.reason],
        ),
        (target) =>
          `${target}state = v.state, ${target}text = COALESCE(v.text, o.text), ` +
          `${target}error = v.error, ${target}render_input = NULL, ${target}claimed_by = NULL, ` +
          `${target}updated_at = ?`,
        "o.state = 'unrendered'",
        [now],
      ),
    );
  }
}
