import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { chunks } from '../database/driver/placeholders';
import { idsNotOwned } from '../database/owned-ids';
import { nowUtc } from '../common/time/datetime';
import { PhoneGroup, PhoneGroupPhone } from './entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import { isNameKeyTaken } from '../database/name-key';

/** A phone group's stored fields a write sets. */
export type PhoneGroupRow = Pick<PhoneGroup, 'name' | 'name_key'>;

/** What a write that links phones did: the group's id, or the ids that are not the user's phones. */
export type Linked = { id: number } | { notOwned: number[] };

/** What a delete did. */
export type Deleted = 'deleted' | 'not_found' | { pending: number };

/** Links per INSERT: four values each, far below SQLite's limit on bound parameters. */
const LINKS_PER_INSERT = 1_000;

/** Phone groups and their phones. Every query is scoped by the owner's id. */
@Injectable()
export class PhoneGroupsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(PhoneGroup) private readonly groups: Repository<PhoneGroup>,
  ) {}

  findOwned(userId: number, id: number): Promise<PhoneGroup | null> {
    return this.groups.findOneBy({ id, id_user: userId });
  }

  /** Whether another of the user's phone groups has this name key: the unique index's. */
  isNameTaken(userId: number, key: string, exceptId?: number): Promise<boolean> {
    return isNameKeyTaken(this.groups, userId, key, exceptId);
  }

  /**
   * Creates a group with its phones in one transaction, in which the phones are checked to be
   * the user's: none is written when one is not.
   */
  create(userId: number, group: PhoneGroupRow, phoneIds: readonly number[]): Promise<Linked> {
    return this.dataSource.transaction(async (manager) => {
      const notOwned = await idsNotOwned(manager, Phone, userId, phoneIds);
      if (notOwned.length > 0) {
        return { notOwned };
      }
      const now = nowUtc();
      const saved = await manager.getRepository(PhoneGroup).save(
        Object.assign(new PhoneGroup(), group, {
          id_user: userId,
          created_at: now,
          updated_at: null,
        }),
      );
      await this.link(manager, saved.id, phoneIds, now);
      return { id: saved.id };
    });
  }

  /**
   * Updates one of the user's groups and, when `phoneIds` is given, replaces its phones, in one
   * transaction. Null when the user has no such group (any more).
   */
  update(
    userId: number,
    id: number,
    changes: Partial<PhoneGroupRow>,
    phoneIds: readonly number[] | undefined,
  ): Promise<Linked | null> {
    return this.dataSource.transaction(async (manager) => {
      const notOwned = await idsNotOwned(manager, Phone, userId, phoneIds ?? []);
      if (notOwned.length > 0) {
        return { notOwned };
      }
      const now = nowUtc();
      const result = await manager
        .getRepository(PhoneGroup)
        .update({ id, id_user: userId }, { ...changes, updated_at: now });
      if (!result.affected) {
        return null;
      }
      if (phoneIds !== undefined) {
        await manager.getRepository(PhoneGroupPhone).delete({ id_phone_group: id });
        await this.link(manager, id, phoneIds, now);
      }
      return { id };
    });
  }

  /**
   * Deletes one of the user's groups unless pending messages name it: scheduled messages, and
   * messages the dispatch has taken whose recipients are not all sent yet (outbox rows), which
   * would otherwise lose their phones. The check and the delete are one transaction, and the
   * group's row is locked first: a message scheduled meanwhile either is counted, or waits and
   * then finds no group (its foreign key refuses it). READ COMMITTED on MySQL, so that the count
   * reads what was committed before the lock was granted.
   */
  deleteUnused(userId: number, id: number): Promise<Deleted> {
    const mysql = this.dataSource.options.type === 'mysql';
    const work = async (manager: EntityManager): Promise<Deleted> => {
      const [found] = await manager.query<unknown[]>(
        'SELECT id FROM phone_group WHERE id = ? AND id_user = ?' + (mysql ? ' FOR UPDATE' : ''),
        [id, userId],
      );
      if (!found) {
        return 'not_found';
      }
      const [{ pending }] = await manager.query<Array<{ pending: number | string }>>(
        'SELECT COUNT(*) AS pending FROM (' +
          'SELECT id FROM scheduled WHERE id_user = ? AND id_phone_group = ? ' +
          'UNION SELECT originating_scheduled FROM outbox WHERE id_user = ? AND id_phone_group = ?' +
          ') messages',
        [userId, id, userId, id],
      );
      if (Number(pending) > 0) {
        return { pending: Number(pending) };
      }
      // The foreign keys delete its phone memberships.
      await manager.getRepository(PhoneGroup).delete({ id, id_user: userId });
      return 'deleted';
    };
    return mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }

  private async link(
    manager: EntityManager,
    groupId: number,
    phoneIds: readonly number[],
    now: string,
  ): Promise<void> {
    for (const chunk of chunks(phoneIds, LINKS_PER_INSERT)) {
      await manager.getRepository(PhoneGroupPhone).insert(
        chunk.map((id_phone) =>
          Object.assign(new PhoneGroupPhone(), {
            id_phone_group: groupId,
            id_phone,
            created_at: now,
            updated_at: null,
          }),
        ),
      );
    }
  }
}
