import { utcString } from '../common/time/datetime';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { marks } from '../database/driver/placeholders';
import { select, Sql, write } from '../database/driver/sql';
import { DriverRunner } from '../database/driver/runner';
import { queueEvents } from '../events/webhook-events';
import { DEFAULT_SETTINGS, ReliabilityType } from '../users/settings';

/** The sends of one phone within a user's window for one type. */
export interface PhoneWindow {
  id_phone: number;
  /** When the phone's last alert of that type was raised (UTC), or null for none. */
  last_alert: string | null;
  total: number;
  unreliable: number;
}

/** An alert to record, with what it does beside starting a new window. */
export interface NewAlert {
  userId: number;
  type: ReliabilityType;
  window: PhoneWindow;
  /** The period of the user's setting, in minutes, as the event tells it. */
  periodMinutes: number;
  /** 0 to 1, four decimals, as the event tells it. */
  rate: number;
  at: Date;
  webhook: boolean;
  autoDisable: boolean;
}

/** What recording an alert did: nothing when the phone was disabled or alerted meanwhile. */
export interface RecordedAlert {
  recorded: boolean;
  deliveries: number;
  disabled: boolean;
}

/**
 * The reliability check's SQL (docs/dispatch.md#phone-reliability), each query scoped by the
 * user. Datetimes are compared as the UTC `YYYY-MM-DD HH:MM:SS` strings both engines store.
 */
@Injectable()
export class ReliabilityRepository {
  private readonly sql: DriverRunner;

  constructor(dataSource: DataSource) {
    this.sql = DriverRunner.for(dataSource);
  }

  /**
   * The active users with their stored reliability settings (those they have no row for take the
   * defaults), by user id.
   */
  async activeUsersSettings(): Promise<Map<number, Record<string, string>>> {
    const names = Object.keys(DEFAULT_SETTINGS).filter((name) =>
      name.startsWith('phone_reliability_'),
    );
    const rows = await this.sql.run(
      select<{ id: number; name: string | null; value: string | null }>(
        'SELECT u.id AS id, s.name AS name, s.value AS value FROM user u ' +
          `LEFT JOIN setting s ON s.id_user = u.id AND s.name IN (${marks(names.length)}) ` +
          "WHERE u.status = 'active' ORDER BY u.id",
        names,
      ),
    );
    const users = new Map<number, Record<string, string>>();
    for (const row of rows) {
      const settings = users.get(Number(row.id)) ?? {};
      if (row.name !== null) {
        settings[row.name] = row.value ?? '';
      }
      users.set(Number(row.id), settings);
    }
    return users;
  }

  /**
   * Per phone of the user that is not disabled, its sends of `type` status among those with `at`
   * in [from, to] and after the phone's last alert of that type, its refusals that failed over
   * counted as failed sends; only phones with at least `volume` of them. One grouped query: the
   * `(id_user, at, id_phone, status)` index of `sended` and `(id_user, at, id_phone)` of
   * `send_refusal` cover it, and the last alerts, found from the user's phones, are the tops of
   * `(id_phone, type, created_at)`. It groups by the phone's id, not the entry's, so that
   * SQLite's planner does not take `(id_user, id_phone)` for its order and read every entry the
   * user ever sent.
   */
  async windows(
    userId: number,
    type: ReliabilityType,
    from: string,
    to: string,
    volume: number,
  ): Promise<PhoneWindow[]> {
    const rows = await this.sql.run(
      select<{ id_phone: number; last_alert: string | null; total: number; unreliable: number }>(
        'SELECT p.id AS id_phone, h.last_alert AS last_alert, COUNT(*) AS total, ' +
          'SUM(CASE WHEN s.status = ? THEN 1 ELSE 0 END) AS unreliable ' +
          // A phone's refusals after which the recipient went through another phone count as
          // its failed sends (docs/dispatch.md#failover).
          'FROM (SELECT id_user, id_phone, at, status FROM sended ' +
          'WHERE id_user = ? AND at >= ? AND at <= ? ' +
          "UNION ALL SELECT id_user, id_phone, at, 'failed' AS status FROM send_refusal " +
          'WHERE id_user = ? AND at >= ? AND at <= ?) s ' +
          'JOIN phone p ON p.id = s.id_phone AND p.id_user = s.id_user ' +
          'LEFT JOIN (SELECT a.id_phone AS id_phone, MAX(a.created_at) AS last_alert ' +
          'FROM phone q JOIN phone_reliability_history a ON a.id_phone = q.id AND a.type = ? ' +
          'WHERE q.id_user = ? AND a.id_user = ? GROUP BY a.id_phone) h ' +
          'ON h.id_phone = p.id ' +
          "WHERE s.id_user = ? AND s.at >= ? AND s.at <= ? AND p.status <> 'disabled' " +
          'AND (h.last_alert IS NULL OR s.at > h.last_alert) ' +
          'GROUP BY p.id, h.last_alert HAVING COUNT(*) >= ? ORDER BY p.id',
        [type, userId, from, to, userId, from, to, type, userId, userId, userId, from, to, volume],
      ),
    );
    return rows.map((row) => ({
      id_phone: Number(row.id_phone),
      last_alert: row.last_alert === null ? null : String(row.last_alert).slice(0, 19),
      total: Number(row.total),
      unreliable: Number(row.unreliable),
    }));
  }

  /**
   * Records `alert` in one transaction: its history row (which starts the phone's next window),
   * its `phone_reliability` event when the user wants it, and the phone disabled when the user
   * wants that. Nothing when the phone was disabled, or alerted of that type, since its window
   * was read: a second checker, or the user, came first.
   */
  record(alert: NewAlert): Promise<RecordedAlert> {
    return this.sql.transaction(this.recordAlert(alert));
  }

  private *recordAlert(alert: NewAlert): Sql<RecordedAlert> {
    const { userId, type, window, at } = alert;
    const stamp = utcString(at);
    const inserted = yield* write(
      'INSERT INTO phone_reliability_history (id_user, id_phone, type, total, unreliable, ' +
        'created_at) SELECT p.id_user, p.id, ?, ?, ?, ? FROM phone p ' +
        "WHERE p.id = ? AND p.id_user = ? AND p.status <> 'disabled' AND NOT EXISTS " +
        '(SELECT 1 FROM phone_reliability_history a WHERE a.id_phone = p.id AND a.type = ? ' +
        'AND a.created_at > ?)',
      [
        type,
        window.total,
        window.unreliable,
        stamp,
        window.id_phone,
        userId,
        type,
        window.last_alert ?? NO_ALERT,
      ],
    );
    if (inserted.affected === 0) {
      return { recorded: false, deliveries: 0, disabled: false };
    }
    const deliveries = alert.webhook
      ? yield* queueEvents([
          {
            userId,
            type: 'phone_reliability',
            at,
            payload: () => ({
              reliability_type: type,
              id_phone: window.id_phone,
              period: alert.periodMinutes,
              total: window.total,
              unreliable: window.unreliable,
              rate: alert.rate,
            }),
          },
        ])
      : 0;
    let disabled = false;
    if (alert.autoDisable) {
      const updated = yield* write(
        "UPDATE phone SET status = 'disabled', updated_at = ? WHERE id = ? AND id_user = ?",
        [stamp, window.id_phone, userId],
      );
      disabled = updated.affected > 0;
    }
    return { recorded: true, deliveries, disabled };
  }
}

/** Before any alert: the least DATETIME MySQL holds, and a string SQLite compares alike. */
const NO_ALERT = '1000-01-01 00:00:00';
