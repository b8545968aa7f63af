import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { Params, isAbsent, parseOptionalString } from '../common/params/parse';
import { parseApiDatetime } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { Period, UsageRepository } from './usage.repository';

/** The answer of get_usage. `phones_volumes` is keyed by phone id. */
export interface Usage {
  total: number;
  phones_volumes: Record<string, number>;
}

/** get_usage: the caller's sent messages per phone in a period, rules in the API's order. */
@Injectable()
export class UsageService {
  constructor(
    private readonly usage: UsageRepository,
    private readonly config: AppConfig,
  ) {}

  async usageOf(userId: number, params: Params): Promise<Usage> {
    // Rule 1.
    const period: Period = {
      start: this.optionalDatetime(params.start, 'start'),
      end: this.optionalDatetime(params.end, 'end'),
    };
    // A LIKE pattern used verbatim, as RaspiSMS does (`%`, `_` wildcards); empty means no filter.
    const tag = parseOptionalString(params.tag, 'tag') || undefined;
    // Rule 2.
    const volumes = await this.usage.countSentPerPhone(userId, period, tag);
    // Rule 3. An object even without phones: RaspiSMS's `[]` there is PHP's empty array.
    const phonesVolumes: Record<string, number> = {};
    let total = 0;
    for (const { id_phone, volume } of volumes) {
      phonesVolumes[id_phone] = volume;
      total += volume;
    }
    return { total, phones_volumes: phonesVolumes };
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
}
