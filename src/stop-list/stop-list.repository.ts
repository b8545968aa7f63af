import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Cursor } from '../common/paging/cursor';
import { applyCursor } from '../common/paging/cursor-query';
import { nowUtc } from '../common/time/datetime';
import { SmsStop } from './entities/sms-stop.entity';
import { addStop } from '../messages/sms-stop';

/** A stopped number as the API lists it; `created_at` in UTC, as stored. */
export interface StopRow {
  id: number;
  number: string;
  created_at: string;
}

/** The STOP list. Every query is scoped by the owner's id. */
@Injectable()
export class StopListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One page of the user's stopped numbers, ascending by id, on the `(id_user, id)` index. */
  async listPage(userId: number, cursor: Cursor): Promise<StopRow[]> {
    const query = this.dataSource
      .createQueryBuilder()
      .select('s.id', 'id')
      .addSelect('s.number', 'number')
      .addSelect('s.created_at', 'created_at')
      .from(SmsStop, 's')
      .where('s.id_user = :userId', { userId });
    const rows = await applyCursor(query, 's', cursor).getRawMany<StopRow>();
    return rows
      .map((row) => ({ id: Number(row.id), number: row.number, created_at: row.created_at }))
      .sort((a, b) => a.id - b.id);
  }

  /**
   * Adds the number unless the user has it already; its id either way, and whether this call
   * added it. The read follows the insert in one transaction: on MySQL the ignored insert waited
   * for a concurrent one to commit, and the read's snapshot starts after it, so it sees that row.
   */
  add(userId: number, number: string): Promise<{ id: number; added: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      const added = await addStop(manager, userId, number, nowUtc());
      const row = await manager
        .createQueryBuilder()
        .select('s.id', 'id')
        .from(SmsStop, 's')
        .where('s.id_user = :userId', { userId })
        .andWhere('s.number = :number', { number })
        .getRawOne<{ id: number }>();
      return { id: Number(row!.id), added };
    });
  }

  async deleteOwned(userId: number, id: number): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(SmsStop)
      .where('id = :id', { id })
      .andWhere('id_user = :userId', { userId })
      .execute();
    return Boolean(result.affected);
  }
}
