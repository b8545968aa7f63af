import { Injectable, Logger } from '@nestjs/common';
import { reachesRate, reliabilityRules, roundedRate } from './reliability-rules';
import { utcString } from '../common/time/datetime';
import { ReliabilityRepository } from './reliability.repository';
import { ReliabilityType } from '../users/settings';

/** An alert the check raised. */
export interface ReliabilityAlert {
  userId: number;
  phoneId: number;
  type: ReliabilityType;
  total: number;
  unreliable: number;
  rate: number;
  /** How many webhook deliveries its event was queued for. */
  deliveries: number;
  disabled: boolean;
}

const MINUTE_MS = 60_000;

/**
 * The phone reliability check (docs/dispatch.md#phone-reliability), run by one dispatch worker
 * at a time every RELIABILITY_CHECK_MINUTES. Its clock is the caller's `now`, never the
 * database's, so that every process and every test judge the same window.
 */
@Injectable()
export class ReliabilityService {
  private readonly logger = new Logger(ReliabilityService.name);

  constructor(private readonly repository: ReliabilityRepository) {}

  /**
   * Checks every phone of every active user against the user's settings, as of `now`; stops
   * between users once `active` says so. The alerts raised.
   */
  async check(now: Date, active: () => boolean = () => true): Promise<ReliabilityAlert[]> {
    const alerts: ReliabilityAlert[] = [];
    for (const [userId, settings] of await this.repository.activeUsersSettings()) {
      if (!active()) {
        break;
      }
      for (const rule of reliabilityRules(settings)) {
        // A window that ends before it starts holds nothing (a pair stored before it was checked).
        if (rule.graceMinutes >= rule.periodMinutes) {
          continue;
        }
        const from = utcString(new Date(now.getTime() - rule.periodMinutes * MINUTE_MS));
        const to = utcString(new Date(now.getTime() - rule.graceMinutes * MINUTE_MS));
        const windows = await this.repository.windows(userId, rule.type, from, to, rule.volume);
        for (const window of windows) {
          if (!reachesRate(window.unreliable, window.total, rule.rateLimit)) {
            continue;
          }
          const rate = roundedRate(window.unreliable, window.total);
          const recorded = await this.repository.record({
            userId,
            type: rule.type,
            window,
            periodMinutes: rule.periodMinutes,
            rate,
            at: now,
            webhook: rule.webhook,
            autoDisable: rule.autoDisable,
          });
          if (!recorded.recorded) {
            continue;
          }
          this.logger.warn(
            `Phone ${window.id_phone} of user ${userId} is unreliable: ${window.unreliable} of ` +
              `its ${window.total} messages sent over the last ${rule.periodMinutes} minutes are ` +
              `${rule.type} (${(rate * 100).toFixed(2)} %, the user's limit is ${rule.rateLimit} %)` +
              `${recorded.deliveries > 0 ? `; ${recorded.deliveries} webhook deliveries queued` : ''}` +
              `${recorded.disabled ? '; the phone is now disabled' : ''}.`,
          );
          alerts.push({
            userId,
            phoneId: window.id_phone,
            type: rule.type,
            total: window.total,
            unreliable: window.unreliable,
            rate,
            deliveries: recorded.deliveries,
            disabled: recorded.disabled,
          });
        }
      }
    }
    return alerts;
  }
}
