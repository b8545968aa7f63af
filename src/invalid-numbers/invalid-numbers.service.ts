import { Injectable } from '@nestjs/common';
import { Paged } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { InvalidNumbersRepository } from './invalid-numbers.repository';
import { InvalidNumbersInput } from './invalid-numbers.params';
import { roundedPercentage } from './percentages';

/** A row of get_invalid_numbers. */
export interface InvalidNumber {
  destination: string;
  total_sms_sent: number;
  failed_percentage: number;
  unknown_percentage: number;
}

const PAGE_SIZE = 25;

/** get_invalid_numbers: the caller's destinations that often fail, rules in the API's order. */
@Injectable()
export class InvalidNumbersService {
  constructor(private readonly invalidNumbers: InvalidNumbersRepository) {}

  async list(
    userId: number,
    apiKey: string | undefined,
    { volume, percentFailed, percentUnknown, page }: InvalidNumbersInput,
    linkBase: string,
  ): Promise<Paged<InvalidNumber>> {
    // Rule 1 was checked at the edge (invalid-numbers.params.ts).
    // Rule 2: the caller's messages only (RaspiSMS counted every user's), by destination.
    const rows = await this.invalidNumbers.listPage(
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
}
