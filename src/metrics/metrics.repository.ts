import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** The states of the dispatch queue's rows, each reported even when none is in it. */
export const OUTBOX_STATES = ['unrendered', 'queued', 'rejected', 'sending'] as const;

/**
 * The counts behind the gauges that are read at scrape time. Each runs on an index: the queue
 * on `outbox (state, priority, next_attempt_at)`, due messages on `scheduled (at)`, and the worker table
 * holds a row per live worker.
 */
@Injectable()
export class MetricsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Rows of the dispatch queue by state: recipients waiting to be rendered, sent or recorded. */
  async queueByState(): Promise<Map<string, number>> {
    const rows = await this.dataSource.query<Array<{ state: string; n: number | string }>>(
      'SELECT state, COUNT(*) AS n FROM outbox GROUP BY state',
    );
    return new Map(rows.map((row) => [row.state, Number(row.n)]));
  }

  /** Webhook deliveries still pending (the status index counts them without the log). */
  async pendingDeliveries(): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: number | string }>>(
      "SELECT COUNT(*) AS n FROM webhook_delivery WHERE status = 'pending'",
    );
    return Number(row.n);
  }

  /**
   * Scheduled messages due at `now` (UTC `YYYY-MM-DD HH:MM:SS`) that the worker will expand:
   * those of suspended users wait for their user, and those whose send window is closed for it
   * (`send_after`), not for the worker.
   */
  async dueScheduled(now: string): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: number | string }>>(
      'SELECT COUNT(*) AS n FROM scheduled s WHERE s.send_after <= ? AND ' +
        "EXISTS (SELECT 1 FROM user u WHERE u.id = s.id_user AND u.status = 'active')",
      [now],
    );
    return Number(row?.n ?? 0);
  }

  /** The latest heartbeat of any registered worker (UTC `YYYY-MM-DD HH:MM:SS`), or null. */
  async lastHeartbeat(): Promise<string | null> {
    const [row] = await this.dataSource.query<Array<{ at: string | null }>>(
      'SELECT MAX(heartbeat_at) AS at FROM worker',
    );
    return row?.at ?? null;
  }
}
