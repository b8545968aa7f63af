import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { chunks, rowMarks } from '../database/driver/placeholders';
import { idsNotOwned } from '../database/owned-ids';
import { nowUtc } from '../common/time/datetime';
import { Contact } from '../contacts/entities/contact.entity';
import { Group, GroupContact } from './entities/group.entity';
import { GroupName } from './groups.params';
import { isNameKeyTaken } from '../database/name-key';

/** Links per INSERT: far below the engines' limits on bound parameters. */
const LINKS_PER_INSERT = 500;

/** A write done, or refused because some contact ids are not the user's (none is written). */
export type GroupWrite<T> = { done: T } | { notOwned: number[] };

/** Groups of contacts. Every query is scoped by the owner's id. */
@Injectable()
export class GroupsRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Group) private readonly groups: Repository<Group>,
  ) {}

  findOwned(userId: number, groupId: number): Promise<Group | null> {
    return this.groups.findOneBy({ id: groupId, id_user: userId });
  }

  /** Whether another group of the user has this name key. Served by the unique `(id_user, name_key)`. */
  isNameTaken(userId: number, key: string, exceptGroupId?: number): Promise<boolean> {
    return isNameKeyTaken(this.groups, userId, key, exceptGroupId);
  }

  /**
   * Inserts a group and its members in one transaction; the contacts are checked to be the
   * user's in it, so that none deleted meanwhile is linked.
   */
  create(userId: number, name: GroupName, contactIds: number[]): Promise<GroupWrite<number>> {
    return this.dataSource.transaction(async (manager) => {
      const notOwned = await idsNotOwned(manager, Contact, userId, contactIds);
      if (notOwned.length > 0) {
        return { notOwned };
      }
      const now = nowUtc();
      const result = await manager.getRepository(Group).insert({
        id_user: userId,
        name: name.name,
        name_key: name.nameKey,
        created_at: now,
        updated_at: null,
      });
      const id = Number(result.identifiers[0].id);
      await insertLinks(manager, id, contactIds, now);
      return { done: id };
    });
  }

  /**
   * Renames a group of the user and, when `contactIds` is given, replaces its members, in one
   * transaction. `done` is false when the group is no longer the user's.
   */
  update(
    userId: number,
    groupId: number,
    name: GroupName | undefined,
    contactIds: number[] | undefined,
  ): Promise<GroupWrite<boolean>> {
    return this.dataSource.transaction(async (manager) => {
      const notOwned = await idsNotOwned(manager, Contact, userId, contactIds ?? []);
      if (notOwned.length > 0) {
        return { notOwned };
      }
      const now = nowUtc();
      const renamed = name === undefined ? {} : { name: name.name, name_key: name.nameKey };
      const result = await manager
        .getRepository(Group)
        .update({ id: groupId, id_user: userId }, { ...renamed, updated_at: now });
      if (!result.affected) {
        return { done: false };
      }
      if (contactIds !== undefined) {
        await manager.getRepository(GroupContact).delete({ id_group: groupId });
        await insertLinks(manager, groupId, contactIds, now);
      }
      return { done: true };
    });
  }

  /**
   * Deletes a group of the user. The schema's foreign keys take it out of the scheduled messages
   * that name it and delete its memberships; the contacts stay.
   */
  async deleteOwned(userId: number, groupId: number): Promise<boolean> {
    const result = await this.groups.delete({ id: groupId, id_user: userId });
    return Boolean(result.affected);
  }
}

async function insertLinks(
  manager: EntityManager,
  groupId: number,
  contactIds: readonly number[],
  now: string,
): Promise<void> {
  for (const chunk of chunks(contactIds, LINKS_PER_INSERT)) {
    await manager.query(
      'INSERT INTO group_contact (id_group, id_contact, created_at, updated_at) VALUES ' +
        rowMarks(chunk.length, 4),
      chunk.flatMap((contactId) => [groupId, contactId, now, null]),
    );
  }
}
