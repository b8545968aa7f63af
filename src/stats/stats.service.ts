import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { Paged } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { Params, parseId, parseOptionalString } from '../common/params/parse';
import { parseApiDatetime } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { BY_SECOND, DayCount, chooseBucketing, foldIntoDays } from './local-days';
import { parsePercent, roundedPercentage } from './percentages';
import { Period, StatsRepository } from './stats.repository';

/** get_usage's answer: `phones_volumes` is keyed by phone id. */
export interface Usage {
  total: number;
  phones_volumes: Record<string, number>;
}

/** A row of get_invalid_numbers (docs/api-choices.md#statistics). */
export interface InvalidNumber {
  destination: string;
  total_sms_sent: number;
  failed_percentage: number;
  unknown_percentage: number;
}

const PAGE_SIZE = 25;
const INVALID_NUMBER_PARAMETERS = ['volume', 'percent_failed', 'percent_unknown'] as const;

/** get_usage, get_sms_status_stats and get_invalid_numbers (docs/api.md). */
@Injectable()
export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly config: AppConfig,
  ) {}

  async usage(userId: number, params: Params): Promise<Usage> {
    // Rule 1.
    const period: Period = {
      start: this.optionalDatetime(params.start, 'start'),
      end: this.optionalDatetime(params.end, 'end'),
    };
    // A LIKE pattern used verbatim, as RaspiSMS does (`%`, `_` wildcards); empty means no filter.
    const tag = parseOptionalString(params.tag, 'tag') || undefined;
    // Rule 2.
    const volumes = await this.stats.countSentPerPhone(userId, period, tag);
    // Rule 3. An object even without phones: RaspiSMS's `[]` there is PHP's empty array.
    const phonesVolumes: Record<string, number> = {};
    let total = 0;
    for (const { id_phone, volume } of volumes) {
      phonesVolumes[id_phone] = volume;
      total += volume;
    }
    return { total, phones_volumes: phonesVolumes };
  }

  async smsStatusStats(userId: number, params: Params): Promise<DayCount[]> {
    // Rule 1.
    const missing = ['start', 'end'].filter((name) => isAbsent(params[name]));
    if (missing.length > 0) {
      throw ApiError.missing(required(missing));
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

  async invalidNumbers(
    userId: number,
    apiKey: string,
    params: Params,
    linkBase: string,
  ): Promise<Paged<InvalidNumber>> {
    // Rule 1. Empty counts as absent, as for every other parameter.
    const missing = INVALID_NUMBER_PARAMETERS.filter((name) => isAbsent(params[name]));
    if (missing.length > 0) {
      throw ApiError.missing(required(missing));
    }
    const volume = parseId(params.volume, 'volume') as number;
    const percentFailed = parsePercent(params.percent_failed, 'percent_failed');
    const percentUnknown = parsePercent(params.percent_unknown, 'percent_unknown');
    const page = parseId(params.page, 'page') ?? 0;
    // Rule 2: the caller's messages only (RaspiSMS counted every user's), by destination.
    const rows = await this.stats.listInvalidNumbers(
      userId,
      {
        volume,
        minFailedHundredths: percentFailed.minHundredths,
        minUnknownHundredths: percentUnknown.minHundredths,
      },
      page * PAGE_SIZE,
      PAGE_SIZE,
    );
    const items = rows.map((row) => ({
      destination: row.destination,
      total_sms_sent: row.total,
      failed_percentage: roundedPercentage(row.failed, row.total),
      unknown_percentage: roundedPercentage(row.unknown, row.total),
    }));
    // Rule 3.
    const link = (target: number) =>
      buildLink(linkBase, `/api/invalid_number/${target}/`, {
        volume,
        percent_failed: percentFailed.text,
        percent_unknown: percentUnknown.text,
        api_key: apiKey,
      });
    return new Paged(
      items,
      items.length === PAGE_SIZE ? link(page + 1) : null,
      page > 0 ? link(page - 1) : null,
    );
  }

  private optionalDatetime(value: unknown, name: string): string | undefined {
    if (isAbsent(value)) {
      return undefined;
    }
    const utc = typeof value === 'string' ? parseApiDatetime(value, this.config.timeZone) : null;
    if (utc === null) {
      throw ApiError.invalid(`${name} must be a date of format "YYYY-MM-DD HH:MM:SS".`);
    }
    return utc;
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

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** `a is required.`, `a and b are required.`, `a, b and c are required.` */
function required(names: readonly string[]): string {
  if (names.length === 1) {
    return `${names[0]} is required.`;
  }
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} are required.`;
}
