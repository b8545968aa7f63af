import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Sended } from '../messages/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';
import { BUCKET_PREFIX_LENGTH, BucketCount, Bucketing } from './local-days';

/** Inclusive bounds on `sended.at`, UTC strings; an absent bound does not limit. */
export interface Period {
  start?: string;
  end?: string;
}

export interface PhoneVolume {
  id_phone: number;
  volume: number;
}

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

/** Backslash escapes `%` and `_` in the usage tag pattern, as MySQL's LIKE does by default. */
const LIKE_ESCAPE = '\\';

/**
 * MySQL reads a lone escape at the end of a pattern as a literal backslash, SQLite as matching
 * nothing: an escaped backslash means the former on both.
 */
function likePattern(tag: string): string {
  const trailingEscapes = tag.length - tag.replace(/\\+$/, '').length;
  return trailingEscapes % 2 === 1 ? tag + LIKE_ESCAPE : tag;
}

const FAILED = "CASE WHEN s.status = 'failed' THEN 1 ELSE 0 END";
const UNKNOWN = "CASE WHEN s.status = 'unknown' THEN 1 ELSE 0 END";

/**
 * The statistics queries. Each is one statement scoped by the caller's id, written in the SQL
 * SQLite and MariaDB share, and served by an index of `sended` named on the method.
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every phone of the user with the number of the user's sent messages through it in the
   * period, `tag LIKE pattern` when a pattern is given; phones without any count 0. The counts
   * are grouped first, in a derived table over the user's messages, so that both engines read
   * one range of `(id_user, at, id_phone, status)` (a period) or `(id_user, id_phone, at)` (all
   * time) instead of joining phone by phone — which MariaDB did through the `id_phone` foreign
   * key index, reading every message of each phone.
   */
  async countSentPerPhone(userId: number, period: Period, tag?: string): Promise<PhoneVolume[]> {
    const rows = await this.dataSource
      .createQueryBuilder()
      .select('p.id', 'id_phone')
      .addSelect('COALESCE(c.volume, 0)', 'volume')
      .from(Phone, 'p')
      .leftJoin(
        (counts) => {
          counts
            .select('s.id_phone', 'id_phone')
            .addSelect('COUNT(*)', 'volume')
            .from(Sended, 's')
            .where('s.id_user = :userId')
            .andWhere('s.id_phone IS NOT NULL');
          if (period.start !== undefined) {
            counts.andWhere('s.at >= :start');
          }
          if (period.end !== undefined) {
            counts.andWhere('s.at <= :end');
          }
          if (tag !== undefined) {
            counts.andWhere('s.tag LIKE :tag ESCAPE :escape');
          }
          return counts.groupBy('s.id_phone');
        },
        'c',
        'c.id_phone = p.id',
      )
      .where('p.id_user = :userId')
      .setParameters({
        userId,
        start: period.start,
        end: period.end,
        tag: tag === undefined ? undefined : likePattern(tag),
        escape: LIKE_ESCAPE,
      })
      .orderBy('p.id', 'ASC')
      .getRawMany<Record<string, unknown>>();
    return rows.map((row) => ({ id_phone: Number(row.id_phone), volume: Number(row.volume) }));
  }

  async isPhoneOfUser(userId: number, phoneId: number): Promise<boolean> {
    const found = await this.dataSource
      .createQueryBuilder()
      .select('p.id', 'id')
      .from(Phone, 'p')
      .where('p.id_user = :userId AND p.id = :phoneId', { userId, phoneId })
      .getRawOne<Record<string, unknown>>();
    return found !== undefined;
  }

  /**
   * The user's sent messages through a phone (one, or any still existing) in the period,
   * counted per UTC bucket, phone and status: the buckets are folded into local days by the
   * caller (see local-days.ts). One grouped query on the covering `(id_user, at, id_phone,
   * status)` index: a range scan of the period, then a grouping whose cost grows with the
   * messages in the period (~1 µs each, ten times the scan) while the rows it returns stay at
   * ~24 per day, phone and status. Grouping by day in SQL would need engine-specific time-zone
   * functions; one query per day would cost a round trip each.
   */
  async countStatusesPerBucket(
    userId: number,
    period: Required<Period>,
    phoneId: number | undefined,
    bucketing: Bucketing,
  ): Promise<BucketCount[]> {
    // The prefix length comes from a closed set of constants, never from the request.
    const query = this.dataSource
      .createQueryBuilder()
      .select(`SUBSTR(s.at, 1, ${BUCKET_PREFIX_LENGTH[bucketing.kind]})`, 'bucket')
      .from(Sended, 's')
      .where('s.id_user = :userId', { userId })
      .andWhere('s.at >= :start AND s.at <= :end', period)
      .andWhere('s.id_phone IS NOT NULL')
      .groupBy('bucket');
    if (bucketing.kind === 'cut-hour') {
      query
        .addSelect('CASE WHEN SUBSTR(s.at, 15, 5) >= :split THEN 1 ELSE 0 END', 'late')
        .setParameter('split', bucketing.split)
        .addGroupBy('late');
    } else {
      query.addSelect('1', 'late');
    }
    if (phoneId !== undefined) {
      query.andWhere('s.id_phone = :phoneId', { phoneId });
    }
    const rows = await query
      .addSelect('s.id_phone', 'id_phone')
      .addSelect('s.status', 'status')
      .addSelect('COUNT(*)', 'nb')
      .addGroupBy('s.id_phone')
      .addGroupBy('s.status')
      .getRawMany<Record<string, unknown>>();
    return rows.map((row) => ({
      bucket: String(row.bucket),
      late: Number(row.late),
      id_phone: Number(row.id_phone),
      status: String(row.status),
      nb: Number(row.nb),
    }));
  }

  /**
   * One page of the user's destinations with their sent, failed and unknown counts, keeping
   * those with at least `volume` messages whose rounded failed and unknown percentages reach the
   * thresholds, ordered by destination. One grouped query walking `(id_user, destination,
   * status)` in order.
   */
  async listInvalidNumbers(
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
