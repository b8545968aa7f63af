import { Injectable } from '@nestjs/common';
import { UsageInput } from './usage.params';
import { UsageRepository } from './usage.repository';

/** The answer of get_usage. `phones_volumes` is keyed by phone id. */
export interface Usage {
  total: number;
  phones_volumes: Record<string, number>;
}

/** get_usage: the caller's sent messages per phone in a period, rules in the API's order. */
@Injectable()
export class UsageService {
  constructor(private readonly usage: UsageRepository) {}

  async usageOf(userId: number, { period, tag }: UsageInput): Promise<Usage> {
    // Rule 1 was checked at the edge (usage.params.ts).
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
}
