import { Injectable } from '@nestjs/common';
import { select, Sql, write } from '../database/driver/sql';
import { marks } from '../database/driver/placeholders';
import { QuotaRow, QuotaState, quotaState } from '../users/quota';
import { DispatchSql } from './dispatch-sql';

const QUOTA_COLUMNS =
  'id_user, credit, additional, consumed, reserved, start_date, expiration_date, ' +
  'renew_interval, auto_renew, report_unused, report_unused_additional, alerted_close, ' +
  'alerted_reached';

/** The quotas a claim reserves from and a record settles (docs/dispatch.md#quotas). */
@Injectable()
export class QuotaAccountingRepository extends DispatchSql {
  /**
   * The quotas of `userIds`, locked on MySQL: two claims for one user then run one after the
   * other, the second seeing the first's reservations. One lookup by the unique `id_user`; users
   * without a quota cost nothing more.
   */
  *lockQuotas(userIds: readonly number[]): Sql<QuotaState[]> {
    const rows = yield* select<QuotaRow>(
      `SELECT ${QUOTA_COLUMNS} FROM quota WHERE id_user IN (${marks(userIds.length)}) ` +
        `ORDER BY id_user${this.mysql ? ' FOR UPDATE' : ''}`,
      [...userIds],
    );
    return rows.map(quotaState);
  }

  /** The user's quota, in the caller's transaction (locked by the caller's earlier write). */
  *quotaOf(userId: number): Sql<QuotaState | null> {
    const rows = yield* select<QuotaRow>(`SELECT ${QUOTA_COLUMNS} FROM quota WHERE id_user = ?`, [
      userId,
    ]);
    return rows.length > 0 ? quotaState(rows[0]) : null;
  }

  /** Stores a renewal computed from the period that started at `previousStart`. */
  *saveRenewal(quota: QuotaState, previousStart: string, now: string): Sql<void> {
    yield* write(
      'UPDATE quota SET additional = ?, consumed = 0, start_date = ?, expiration_date = ?, ' +
        'alerted_close = 0, alerted_reached = 0, updated_at = ? WHERE id_user = ? AND start_date = ?',
      [
        quota.additional,
        quota.start_date,
        quota.expiration_date,
        now,
        quota.id_user,
        previousStart,
      ],
    );
  }

  /** Reserves segments of the user's quota for sends being claimed. */
  *reserveQuota(userId: number, segments: number, now: string): Sql<void> {
    yield* write('UPDATE quota SET reserved = reserved + ?, updated_at = ? WHERE id_user = ?', [
      segments,
      now,
      userId,
    ]);
  }

  /**
   * Settles reservations once their sends are recorded: `released` segments are no longer
   * reserved, `consumed` of them were taken by a provider. Whether the quota was there.
   */
  *settleQuota(userId: number, released: number, consumed: number, now: string): Sql<boolean> {
    const { affected } = yield* write(
      'UPDATE quota SET reserved = CASE WHEN reserved > ? THEN reserved - ? ELSE 0 END, ' +
        'consumed = consumed + ?, updated_at = ? WHERE id_user = ?',
      [released, released, consumed, now, userId],
    );
    return affected > 0;
  }

  /** Notes that the period had its `level` event; false when it already had (another worker). */
  *markQuotaAlerted(userId: number, level: 'close' | 'reached'): Sql<boolean> {
    const column = level === 'close' ? 'alerted_close' : 'alerted_reached';
    const { affected } = yield* write(
      `UPDATE quota SET ${column} = 1 WHERE id_user = ? AND ${column} = 0`,
      [userId],
    );
    return affected > 0;
  }
}
