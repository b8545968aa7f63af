import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { chunks, marks } from '../database/driver/placeholders';
import { Counter } from './daily-counts';
import { Period } from './stats.repository';

/** Buckets per `IN (…)` list: far below both engines' bound variables. */
const BUCKETS_PER_QUERY = 500;

/** The most alerts get_reliability_stats answers. */
export const ALERTS_LIMIT = 100;

export interface QueueCounts {
  due: number;
  to_come: number;
  sending: number;
}

export interface AlertRow {
  id_phone: number;
  type: string;
  created_at: string;
  total: number | null;
  unreliable: number | null;
}

/**
 * The queries of the dashboard's statistics (docs/api.md#dashboard-statistics), each scoped by
 * the caller's id and served by an index of the DashboardStatistics migration, so that none
 * reads the user's messages one by one.
 */
@Injectable()
export class DashboardRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The user's counters in `buckets` (one lookup each on the unique key), of one phone or all. */
  async counters(
    userId: number,
    buckets: readonly string[],
    phoneId: number | undefined,
  ): Promise<Counter[]> {
    const counters: Counter[] = [];
    for (const chunk of chunks(buckets, BUCKETS_PER_QUERY)) {
      const rows = await this.dataSource.query<Array<Record<string, unknown>>>(
        'SELECT bucket, id_phone, kind, nb FROM message_count WHERE id_user = ? AND bucket IN ' +
          `(${marks(chunk.length)})` +
          (phoneId === undefined ? '' : ' AND id_phone = ?'),
        [userId, ...chunk, ...(phoneId === undefined ? [] : [phoneId])],
      );
      for (const row of rows) {
        counters.push({
          bucket: String(row.bucket),
          id_phone: Number(row.id_phone),
          kind: String(row.kind),
          nb: Number(row.nb),
        });
      }
    }
    return counters;
  }

  /**
   * The user's scheduled messages by where the dispatch has them at `now`
   * (docs/api.md#get_queue_stats): not taken yet (`expansion_phase` null), whole (not `hidden`), and due or not, by
   * `send_after` (a message waiting for its send window is to come), within the user's rows of
   * the `(id_user, expansion_phase, at)` index; taken, as a message being expanded or with recipients
   * still in the outbox, on that index and `(id_user, originating_scheduled)`.
   */
  async queue(userId: number, now: string): Promise<QueueCounts> {
    const [waiting] = await this.dataSource.query<Array<Record<string, unknown>>>(
      'SELECT COALESCE(SUM(CASE WHEN send_after <= ? THEN 1 ELSE 0 END), 0) AS due, ' +
        'COALESCE(SUM(CASE WHEN send_after > ? THEN 1 ELSE 0 END), 0) AS to_come ' +
        'FROM scheduled WHERE id_user = ? AND expansion_phase IS NULL AND hidden = 0',
      [now, now, userId],
    );
    const [taken] = await this.dataSource.query<Array<Record<string, unknown>>>(
      'SELECT COUNT(*) AS sending FROM (' +
        'SELECT originating_scheduled AS id FROM outbox WHERE id_user = ? UNION ' +
        'SELECT id FROM scheduled WHERE id_user = ? AND expansion_phase IS NOT NULL) taken',
      [userId, userId],
    );
    return {
      due: Number(waiting.due),
      to_come: Number(waiting.to_come),
      sending: Number(taken.sending),
    };
  }

  /** The user's latest alerts recorded in the period, newest first, on `(id_user, created_at)`. */
  async alerts(userId: number, period: Period): Promise<AlertRow[]> {
    const rows = await this.dataSource.query<Array<Record<string, unknown>>>(
      'SELECT id_phone, type, created_at, total, unreliable FROM phone_reliability_history ' +
        'WHERE id_user = ? AND created_at >= ? AND created_at <= ? ' +
        `ORDER BY created_at DESC, id DESC LIMIT ${ALERTS_LIMIT}`,
      [userId, period.start, period.end],
    );
    return rows.map((row) => ({
      id_phone: Number(row.id_phone),
      type: String(row.type),
      created_at: String(row.created_at),
      total: row.total === null ? null : Number(row.total),
      unreliable: row.unreliable === null ? null : Number(row.unreliable),
    }));
  }
}
