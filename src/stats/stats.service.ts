import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { AppConfig } from '../config/configuration';
import { BY_SECOND, DayCount, chooseBucketing, foldIntoDays } from './local-days';
import { StatsInput } from './stats.params';
import { StatsRepository } from './stats.repository';

/** get_sms_status_stats: sent messages per local day, phone and status, rules in the API's order. */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly config: AppConfig,
  ) {}

  async smsStatusStats(userId: number, { start, end, phoneId }: StatsInput): Promise<DayCount[]> {
    // Rules 1 and 2 were checked at the edge (stats.params.ts).
    // Rule 3. Another user's phone is refused exactly as one that does not exist.
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
}
