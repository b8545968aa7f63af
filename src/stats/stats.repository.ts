import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Sended } from '../sended/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';
import { BUCKET_PREFIX_LENGTH, BucketCount, Bucketing } from './local-days';

/** Inclusive bounds on `sended.at`, UTC strings. */
export interface Period {
  start: string;
  end: string;
}

/**
 * The queries of get_sms_status_stats. Each is one statement scoped by the caller's id, written
 * in the SQL SQLite and MariaDB share, and served by an index named on the method.
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly dataSource: DataSource) {}

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
    period: Period,
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
}
