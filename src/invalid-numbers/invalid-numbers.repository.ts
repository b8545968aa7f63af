import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Sended } from '../sended/entities/sended.entity';

export interface DestinationCounts {
  destination: string;
  total: number;
  failed: number;
  unknown: number;
}

export interface InvalidNumberFilter {
  volume: number;
  /** Smallest rounded failed percentage admitted, in hundredths of a percent. */
  minFailedHundredths: number;
  minUnknownHundredths: number;
}

const FAILED = "CASE WHEN s.status = 'failed' THEN 1 ELSE 0 END";
const UNKNOWN = "CASE WHEN s.status = 'unknown' THEN 1 ELSE 0 END";

/** The invalid-numbers query: one statement scoped by the caller's id. */
@Injectable()
export class InvalidNumbersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One page of the user's destinations with their sent, failed and unknown counts, keeping
   * those with at least `volume` messages whose rounded failed and unknown percentages reach the
   * thresholds, ordered by destination. One grouped query walking `(id_user, destination,
   * status)` in order.
   */
  async listPage(
    userId: number,
    filter: InvalidNumberFilter,
    offset: number,
    limit: number,
  ): Promise<DestinationCounts[]> {
    const rows = await this.dataSource
      .createQueryBuilder()
      .select('s.destination', 'destination')
      .addSelect('COUNT(*)', 'total')
      .addSelect(`SUM(${FAILED})`, 'failed')
      .addSelect(`SUM(${UNKNOWN})`, 'unknown_count')
      .from(Sended, 's')
      .where('s.id_user = :userId', { userId })
      .groupBy('s.destination')
      .having('COUNT(*) >= :volume', { volume: filter.volume })
      // See percentages.ts: the rounded percentage compared exactly, in integers.
      .andHaving(`20000 * SUM(${FAILED}) + COUNT(*) >= :failedBound * COUNT(*)`, {
        failedBound: 2 * filter.minFailedHundredths,
      })
      .andHaving(`20000 * SUM(${UNKNOWN}) + COUNT(*) >= :unknownBound * COUNT(*)`, {
        unknownBound: 2 * filter.minUnknownHundredths,
      })
      .orderBy('s.destination', 'ASC')
      .offset(offset)
      .limit(limit)
      .getRawMany<Record<string, unknown>>();
    return rows.map((row) => ({
      destination: String(row.destination),
      total: Number(row.total),
      failed: Number(row.failed),
      unknown: Number(row.unknown_count),
    }));
  }
}
