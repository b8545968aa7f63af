import { Injectable } from '@nestjs/common';
import { utcDate } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { Sql } from '../database/driver/sql';
import { queueEvents } from '../events/webhook-events';
import { closeThreshold, dueAlerts, remainingOf, renewedAt } from '../users/quota';
import { isSettingOn } from '../users/settings';
import { QuotaBudget, quotaBudget } from './quota-budget';
import { QuotaAccountingRepository } from './quota-accounting.repository';

/** A recorded send's effect on its user's quota. */
export interface QuotaChange {
  userId: number;
  /** Segments no longer reserved. */
  released: number;
  /** Of those, taken by a provider. */
  consumed: number;
}

/**
 * The users' quotas as the dispatch spends them (docs/dispatch.md#quotas): a claim reserves the
 * segments of the rows it sends, and their record settles the reservations, consumed or given
 * back, and queues the `quota` events the consumption brings about. All in the callers'
 * transactions.
 */
@Injectable()
export class QuotaAccountingService {
  constructor(
    private readonly repository: QuotaAccountingRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * The quotas of the users being claimed for, locked, renewed first when their period is over
   * and `auto_renew` is on.
   */
  *budgets(userIds: readonly number[], now: string): Sql<Map<number, QuotaBudget>> {
    const budgets = new Map<number, QuotaBudget>();
    for (const stored of yield* this.repository.lockQuotas(userIds)) {
      const renewed = renewedAt(stored, now, this.config.timeZone);
      if (renewed) {
        yield* this.repository.saveRenewal(renewed, stored.start_date, now);
      }
      const quota = renewed ?? stored;
      budgets.set(quota.id_user, quotaBudget(quota));
    }
    return budgets;
  }

  /** Reserves the segments a claim planned, per user. */
  *reserve(reserved: ReadonlyMap<number, number>, now: string): Sql<void> {
    for (const [userId, segments] of reserved) {
      yield* this.repository.reserveQuota(userId, segments, now);
    }
  }

  /**
   * Settles recorded sends against their users' quotas, user by user in id order (the order
   * claims lock them in), and queues the `quota` events the consumption brings about.
   */
  *settle(changes: readonly QuotaChange[], now: string): Sql<void> {
    const byUser = new Map<number, { released: number; consumed: number }>();
    for (const { userId, released, consumed } of changes) {
      const total = byUser.get(userId) ?? { released: 0, consumed: 0 };
      total.released += released;
      total.consumed += consumed;
      byUser.set(userId, total);
    }
    for (const userId of [...byUser.keys()].sort((a, b) => a - b)) {
      const { released, consumed } = byUser.get(userId)!;
      const present = yield* this.repository.settleQuota(userId, released, consumed, now);
      if (present && consumed > 0) {
        yield* this.queueQuotaEvents(userId, now);
      }
    }
  }

  /** The `quota` events the user's quota is due, each once per period. */
  private *queueQuotaEvents(userId: number, now: string): Sql<void> {
    const quota = yield* this.repository.quotaOf(userId);
    if (!quota) {
      return;
    }
    const settings = yield* this.repository.settingsOf(userId);
    const levels = dueAlerts(
      quota,
      closeThreshold(settings.alert_quota_limit_close),
      isSettingOn(settings, 'alert_quota_limit_reached'),
    );
    const events = [];
    for (const level of levels) {
      if (yield* this.repository.markQuotaAlerted(userId, level)) {
        events.push({
          userId,
          type: 'quota' as const,
          at: utcDate(now),
          payload: () => ({
            level,
            credit: quota.credit,
            additional: quota.additional,
            consumed: quota.consumed + quota.reserved,
            remaining: remainingOf(quota),
          }),
        });
      }
    }
    yield* queueEvents(events);
  }
}
