import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { DriverRunner } from '../database/driver/runner';
import { nowUtc } from '../common/time/datetime';
import { ContactRow, userContactsAfter } from '../contacts/contact-recipients';
import { ConditionalGroup } from './entities/conditional-group.entity';
import { isNameKeyTaken } from '../database/name-key';

/** A conditional group's stored fields an update changes. */
export type ConditionalGroupRow = Pick<ConditionalGroup, 'name' | 'name_key' | 'condition'>;

/** Conditional groups, and the contacts their previews test. Every query is scoped by the owner. */
@Injectable()
export class ConditionalGroupsRepository {
  private readonly sql: DriverRunner;

  constructor(
    dataSource: DataSource,
    @InjectRepository(ConditionalGroup) private readonly groups: Repository<ConditionalGroup>,
  ) {
    this.sql = DriverRunner.for(dataSource);
  }

  findOwned(userId: number, id: number): Promise<ConditionalGroup | null> {
    return this.groups.findOneBy({ id, id_user: userId });
  }

  /** Whether another of the user's conditional groups has this name key: the unique index's. */
  isNameTaken(userId: number, key: string, exceptId?: number): Promise<boolean> {
    return isNameKeyTaken(this.groups, userId, key, exceptId);
  }

  async create(userId: number, group: ConditionalGroupRow): Promise<number> {
    const saved = await this.groups.save(
      Object.assign(new ConditionalGroup(), group, {
        id_user: userId,
        created_at: nowUtc(),
        updated_at: null,
      }),
    );
    return saved.id;
  }

  /** False when the user has no such group (any more). */
  async update(
    userId: number,
    id: number,
    changes: Partial<ConditionalGroupRow>,
  ): Promise<boolean> {
    const result = await this.groups.update(
      { id, id_user: userId },
      { ...changes, updated_at: nowUtc() },
    );
    return Boolean(result.affected);
  }

  /** Deletes one of the user's groups; foreign keys remove it from scheduled messages. */
  async deleteOwned(userId: number, id: number): Promise<boolean> {
    const result = await this.groups.delete({ id, id_user: userId });
    return Boolean(result.affected);
  }

  /** The user's contacts after `afterId` in id order, read as the dispatch reads them. */
  contactsAfter(userId: number, afterId: number, limit: number): Promise<ContactRow[]> {
    return this.sql.run(userContactsAfter(userId, afterId, limit));
  }
}
