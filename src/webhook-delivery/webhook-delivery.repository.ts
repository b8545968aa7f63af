import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { select, Sql, write } from '../database/driver/sql';
import { chunks, marks, rowMarks } from '../database/driver/placeholders';
import { DriverRunner } from '../database/driver/runner';
import { failPendingDeliveries } from '../events/webhook-events';

/** A webhook with deliveries due, as the deliverer reaches it. */
export interface DueWebhook {
  id: number;
  url: string;
  format: string;
  secret: string;
}

/** A claimed delivery; `attempts` counts the attempt it was claimed for. */
export interface ClaimedDelivery {
  id: number;
  id_webhook: number;
  event_id: string;
  event_type: string;
  event_at: string;
  payload: string;
  attempts: number;
}

/** Deliveries of one origin's webhooks to claim, and until when the claim holds them. */
export interface ClaimRequest {
  webhookIds: readonly number[];
  limit: number;
  leaseUntil: string;
}

/** How an attempt ended, as the log records it. */
export type AttemptOutcome = {
  id: number;
  /** The attempt it was claimed for: a record of an older claim changes nothing. */
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  /** An excerpt of the body the endpoint answered; null without an answer, or an empty one. */
  answer: string | null;
} & (
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: string }
  | { status: 'failed'; disableWebhook?: { id: number; reason: string } }
);

/** An attempt's outcome, and when it started and how long it took, as the log keeps it. */
export type AttemptRecord = AttemptOutcome & { startedAt: string; durationMs: number };

/**
 * The deliverer's SQL, on the driver (DriverRunner) as the dispatch's: it runs for every
 * attempt of a burst of thousands of events.
 */
@Injectable()
export class WebhookDeliveryRepository {
  readonly mysql: boolean;
  private readonly sql: DriverRunner;

  constructor(dataSource: DataSource) {
    this.mysql = dataSource.options.type === 'mysql';
    this.sql = DriverRunner.for(dataSource);
  }

  /** Enabled webhooks with deliveries due at `now`, at most `limit`. */
  dueWebhooks(now: string, limit: number): Promise<DueWebhook[]> {
    return this.sql.run(
      select<DueWebhook>(
        'SELECT w.id, w.url, w.format, w.secret FROM (SELECT DISTINCT id_webhook ' +
          "FROM webhook_delivery WHERE status = 'pending' AND next_attempt_at <= ? LIMIT ?) d " +
          'JOIN webhook w ON w.id = d.id_webhook ORDER BY w.id',
        [now, limit],
      ),
    );
  }

  /**
   * Claims due deliveries of each request's webhooks, oldest due first, skipping those another
   * worker holds: each is held until its lease ends (then, if its worker died, it is due again)
   * and counts one more attempt.
   */
  claim(requests: readonly ClaimRequest[], now: string): Promise<ClaimedDelivery[]> {
    return this.sql.transaction(this.claimAll(requests, now), true);
  }

  private *claimAll(requests: readonly ClaimRequest[], now: string): Sql<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    for (const { webhookIds, limit, leaseUntil } of requests) {
      const rows = yield* select<ClaimedDelivery>(
        'SELECT id, id_webhook, event_id, event_type, event_at, payload, attempts ' +
          `FROM webhook_delivery WHERE id_webhook IN (${marks(webhookIds.length)}) ` +
          "AND status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?" +
          (this.mysql ? ' FOR UPDATE SKIP LOCKED' : ''),
        [...webhookIds, now, limit],
      );
      if (rows.length === 0) {
        continue;
      }
      yield* write(
        'UPDATE webhook_delivery SET attempts = attempts + 1, next_attempt_at = ?, updated_at = ? ' +
          `WHERE id IN (${marks(rows.length)})`,
        [leaseUntil, now, ...rows.map((row) => row.id)],
      );
      claimed.push(
        ...rows.map((row) => ({
          ...row,
          id: Number(row.id),
          id_webhook: Number(row.id_webhook),
          attempts: Number(row.attempts) + 1,
        })),
      );
    }
    return claimed;
  }

  /** Hands claimed deliveries back unattempted, due at `now`, as if they had not been claimed. */
  release(deliveries: readonly ClaimedDelivery[], now: string): Promise<void> {
    return this.sql.transaction(this.releaseAll(deliveries, now), true);
  }

  private *releaseAll(deliveries: readonly ClaimedDelivery[], now: string): Sql<void> {
    for (const { id, attempts } of deliveries) {
      yield* write(
        'UPDATE webhook_delivery SET attempts = attempts - 1, next_attempt_at = ?, updated_at = ? ' +
          "WHERE id = ? AND attempts = ? AND status = 'pending'",
        [now, now, id, attempts],
      );
    }
  }

  /** Records attempts' outcomes; a webhook that answered 410 is disabled with them. */
  record(records: readonly AttemptRecord[], now: string): Promise<void> {
    return this.sql.transaction(this.recordAll(records, now), true);
  }

  private *recordAll(all: readonly AttemptRecord[], now: string): Sql<void> {
    const records = yield* this.current(all);
    // One row per attempt beside the delivery's latest: written in the transaction of the
    // outcome, and only for the attempts whose outcome is recorded below.
    for (const chunk of chunks(records, RECORDS_PER_UPDATE)) {
      yield* write(
        'INSERT INTO webhook_attempt (id_delivery, started_at, duration_ms, http_status, answer, error) ' +
          `VALUES ${rowMarks(chunk.length, 6)}`,
        chunk.flatMap((record) => [
          record.id,
          record.startedAt,
          Math.max(0, Math.round(record.durationMs)),
          record.httpStatus,
          record.answer,
          record.error,
        ]),
      );
    }
    // A burst ends thousands of attempts alike (delivered, HTTP 200): one UPDATE for each
    // such group rather than one per attempt, each a round trip that held up the next claim.
    const groups = new Map<string, AttemptRecord[]>();
    const disabling: AttemptRecord[] = [];
    for (const record of records) {
      if (record.status === 'failed' && record.disableWebhook) {
        disabling.push(record);
        continue;
      }
      const key = JSON.stringify(recordValues(record, now));
      groups.set(key, [...(groups.get(key) ?? []), record]);
    }
    for (const group of groups.values()) {
      for (const chunk of chunks(group, RECORDS_PER_UPDATE)) {
        yield* write(
          'UPDATE webhook_delivery SET status = ?, last_http_status = ?, last_error = ?, last_answer = ?, ' +
            "next_attempt_at = ?, delivered_at = ?, updated_at = ? WHERE status = 'pending' AND (" +
            chunk.map(() => '(id = ? AND attempts = ?)').join(' OR ') +
            ')',
          [
            ...recordValues(chunk[0], now),
            ...chunk.flatMap((record) => [record.id, record.attempts]),
          ],
        );
      }
    }
    // After the others: a 410 fails what is still pending of its webhook, which must not
    // include attempts of the same batch that were delivered.
    for (const record of disabling) {
      yield* write(
        'UPDATE webhook_delivery SET status = ?, last_http_status = ?, last_error = ?, last_answer = ?, ' +
          'next_attempt_at = ?, delivered_at = ?, updated_at = ? ' +
          "WHERE id = ? AND attempts = ? AND status = 'pending'",
        [...recordValues(record, now), record.id, record.attempts],
      );
      if (record.status === 'failed' && record.disableWebhook) {
        const { id, reason } = record.disableWebhook;
        yield* write('UPDATE webhook SET enabled = 0, updated_at = ? WHERE id = ?', [now, id]);
        yield* failPendingDeliveries(id, reason);
      }
    }
  }

  /**
   * The records still current: their delivery pending and at the attempt they were claimed for
   * (another worker claims it again once a lease ends). On MariaDB their rows stay locked to the
   * end of the transaction, so that the attempts written and the outcomes recorded are the same.
   */
  private *current(records: readonly AttemptRecord[]): Sql<AttemptRecord[]> {
    const attemptsById = new Map<number, number>();
    for (const chunk of chunks(records, RECORDS_PER_UPDATE)) {
      const ids = chunk.map((record) => record.id);
      const rows = yield* select<{ id: number; attempts: number }>(
        `SELECT id, attempts FROM webhook_delivery WHERE id IN (${marks(ids.length)}) ` +
          "AND status = 'pending'" +
          (this.mysql ? ' FOR UPDATE' : ''),
        ids,
      );
      for (const row of rows) {
        attemptsById.set(Number(row.id), Number(row.attempts));
      }
    }
    // The first 410 of a webhook fails its other pending deliveries, those of this batch too.
    const disabled = new Set<number>();
    return records.filter((record) => {
      if (attemptsById.get(record.id) !== record.attempts) {
        return false;
      }
      if (record.status !== 'failed' || !record.disableWebhook) {
        return true;
      }
      const seen = disabled.has(record.disableWebhook.id);
      disabled.add(record.disableWebhook.id);
      return !seen;
    });
  }

  /**
   * Removes up to `limit` delivered and failed deliveries created before `before`, oldest
   * first: ids grow with time, so the walk stops at the first newer row instead of scanning the
   * log. The number removed; fewer than `limit` means none older remains.
   */
  purge(before: string, limit: number): Promise<number> {
    return this.sql.run(this.purgeOldest(before, limit));
  }

  private *purgeOldest(before: string, limit: number): Sql<number> {
    const rows = yield* select<{ id: number; created_at: string }>(
      "SELECT id, created_at FROM webhook_delivery WHERE status <> 'pending' ORDER BY id LIMIT ?",
      [limit],
    );
    const old = rows.filter((row) => row.created_at < before).map((row) => Number(row.id));
    if (old.length > 0) {
      yield* write(`DELETE FROM webhook_delivery WHERE id IN (${marks(old.length)})`, old);
    }
    return old.length;
  }
}

/**
 * Attempts recorded per UPDATE (two parameters each), looked up per SELECT and written per
 * INSERT (six each): well under either engine's limit.
 */
const RECORDS_PER_UPDATE = 500;

/**
 * status, last_http_status, last_error, last_answer, next_attempt_at, delivered_at, updated_at
 * of `record`.
 */
function recordValues(record: AttemptOutcome, now: string): unknown[] {
  return [
    record.status,
    record.httpStatus,
    record.error,
    record.answer,
    record.status === 'pending' ? record.nextAttemptAt : null,
    record.status === 'delivered' ? now : null,
    now,
  ];
}
