import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseId, requiredMessage } from '../common/params/parse';
import { parseApiDatetime } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { BY_SECOND, DayCount, chooseBucketing, foldIntoDays } from './local-days';
import { StatsRepository } from './stats.repository';

/** get_sms_status_stats: sent messages per local day, phone and status, rules in the API's order. */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly config: AppConfig,
  ) {}

  async smsStatusStats(userId: number, params: Params): Promise<DayCount[]> {
    // Rule 1.
    const missing = ['start', 'end'].filter((name) => isAbsent(params[name]));
    if (missing.length > 0) {
      throw ApiError.missing(requiredMessage(missing));
    }
    // Rule 2, with both bounds inclusive and `YYYY-MM-DD` for midnight
    // (docs/api-choices.md#dates-and-time-zone).
    const start = this.statsDatetime(params.start, 'start');
    const end = this.statsDatetime(params.end, 'end');
    if (end < start) {
      throw ApiError.invalid('end must not be before start.');
    }
    // Rule 3. Another user's phone is refused exactly as one that does not exist.
    const phoneId = parseId(params.id_phone, 'id_phone');
    if (phoneId !== undefined && !(await this.stats.isPhoneOfUser(userId, phoneId))) {
      throw ApiError.invalid(`id_phone must be the id of one of your phones, got ${phoneId}.`);
    }
    // Rule 4. Days of the service zone, rows as docs/api-choices.md#statistics (see local-days.ts):
    // one query, and a second by the second only when an offset change inside the period made the
    // first one's buckets straddle a local midnight.
    const zone = this.config.timeZone;
    const period = { start, end };
    const bucketing = chooseBucketing(start, end, zone);
    const rows = await this.stats.countStatusesPerBucket(userId, period, phoneId, bucketing);
    return (
      foldIntoDays(rows, bucketing, zone) ??
      foldIntoDays(
        await this.stats.countStatusesPerBucket(userId, period, phoneId, BY_SECOND),
        BY_SECOND,
        zone,
      )
    );
  }

  private statsDatetime(value: unknown, name: string): string {
    const utc =
      typeof value === 'string' ? parseApiDatetime(value, this.config.timeZone, true) : null;
    if (utc === null) {
      throw ApiError.invalid(
        `${name} must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".`,
      );
    }
    return utc;
  }
}
