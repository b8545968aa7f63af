import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { nowUtc, utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { roundedRate } from '../reliability/reliability-rules';
import { DailyCounts, planDays, sumDays } from './daily-counts';
import { DashboardRepository, QueueCounts } from './dashboard.repository';
import { StatsInput } from './stats.params';
import { Period, StatsRepository } from './stats.repository';

/** The most days get_daily_stats counts: a leap year. */
export const MAX_DAYS = 366;

/** An alert as get_reliability_stats answers it. */
export interface ReliabilityAlert {
  id_phone: number;
  type: string;
  /** In the service time zone. */
  at: string;
  total: number | null;
  unreliable: number | null;
  rate: number | null;
}

/** The dashboard's get_daily_stats, get_queue_stats and get_reliability_stats (docs/api.md). */
@Injectable()
export class DashboardService {
  constructor(
    private readonly dashboard: DashboardRepository,
    private readonly stats: StatsRepository,
    private readonly config: AppConfig,
  ) {}

  async daily(userId: number, { start, end, phoneId }: StatsInput): Promise<DailyCounts> {
    // Rules 1 and 2 were checked at the edge (stats.params.ts).
    // Rule 3. Another user's phone is refused exactly as one that does not exist.
    if (phoneId !== undefined && !(await this.stats.isPhoneOfUser(userId, phoneId))) {
      throw ApiError.invalid(`id_phone must be the id of one of your phones, got ${phoneId}.`);
    }
    // Rule 4: each day costs a few index lookups (daily-counts.ts), up to ~50 in some zones.
    const plan = planDays(start, end, this.config.timeZone, MAX_DAYS);
    if (plan === null) {
      throw ApiError.invalid(`the period must hold at most ${MAX_DAYS} days, from start to end.`);
    }
    // Rule 5.
    return sumDays(plan, await this.dashboard.counters(userId, [...plan.buckets.keys()], phoneId));
  }

  queue(userId: number): Promise<QueueCounts> {
    return this.dashboard.queue(userId, nowUtc());
  }

  async reliability(userId: number, period: Period): Promise<ReliabilityAlert[]> {
    const rows = await this.dashboard.alerts(userId, period);
    return rows.map((row) => ({
      id_phone: row.id_phone,
      type: row.type,
      at: utcToZone(row.created_at, this.config.timeZone) ?? row.created_at,
      total: row.total,
      unreliable: row.unreliable,
      rate:
        row.total === null || row.unreliable === null
          ? null
          : roundedRate(row.unreliable, row.total),
    }));
  }
}
