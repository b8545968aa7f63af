import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Sended } from '../sended/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';

/** Inclusive bounds on `sended.at`, UTC strings; an absent bound does not limit. */
export interface Period {
  start?: string;
  end?: string;
}

export interface PhoneVolume {
  id_phone: number;
  volume: number;
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

/** The usage query: one statement scoped by the caller's id, in the SQL both engines share. */
@Injectable()
export class UsageRepository {
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
}
