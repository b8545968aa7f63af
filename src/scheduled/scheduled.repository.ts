import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { DriverRunner } from '../database/driver/runner';
import { DriverSql, insertWith } from '../database/driver/group-commit';
import { chunks } from '../database/driver/placeholders';
import { nowUtc } from '../common/time/datetime';
import { ContactRow, userContact } from '../contacts/contact-recipients';
import { ConditionalGroup } from '../conditional-groups/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group } from '../groups/entities/group.entity';
import { MediaRepository, StoredMedia } from '../media/media.repository';
import { PhoneGroup } from '../phone-groups/entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import { messagePriority } from './entities/message-priority';
import { Scheduled } from './entities/scheduled.entity';
import { HiddenScheduledWriter, NUMBERS_PER_TRANSACTION } from './scheduled-hidden-writer';
import { MessageChange, NewScheduled, Recipients, StoredMessage } from './scheduled-message';
import { messageValues, ScheduledRows } from './scheduled-rows';

interface ScheduledRow {
  at: string;
  text: string;
  flash: number | string;
  mms: number | string;
  tag: string | null;
  priority: number | string;
  id_phone: number | string | null;
  id_phone_group: number | string | null;
  validity: number | string | null;
  send_window: string | null;
  expansion_phase: string | null;
}

/** The lists an update may replace, in the order they are written. */
const LISTS = ['numbers', 'contacts', 'groups', 'conditional_groups'] as const;

const RECIPIENT_ENTITIES: Record<Recipients, EntityTarget<ObjectLiteral>> = {
  contacts: Contact,
  groups: Group,
  conditional_groups: ConditionalGroup,
};

/** Ids per `IN (…)` list: far below SQLite's 32,766 bound variables. */
const IDS_PER_QUERY = 1000;

@Injectable()
export class ScheduledRepository {
  private readonly sql: DriverSql;
  private readonly runner: DriverRunner;
  private readonly rows: ScheduledRows;
  private readonly hidden: HiddenScheduledWriter;
  private readonly ownPhone: string;
  private readonly ownPhoneGroup: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly medias: MediaRepository,
  ) {
    this.sql = DriverSql.for(dataSource);
    this.runner = DriverRunner.for(dataSource);
    this.rows = new ScheduledRows(dataSource);
    this.hidden = new HiddenScheduledWriter(this.sql, this.runner, this.rows);
    const owned = (entity: EntityTarget<ObjectLiteral>) =>
      `SELECT 1 AS found FROM ${dataSource.driver.escape(dataSource.getMetadata(entity).tableName)} ` +
      'WHERE id = ? AND id_user = ? LIMIT 1';
    this.ownPhone = owned(Phone);
    this.ownPhoneGroup = owned(PhoneGroup);
  }

  // On the driver, as the insert: get_send_sms with an id_phone asks on every request, and
  // TypeORM's query builder cost more than the statement (bench/cpu-profile.ts). Within a
  // transaction (`manager`), on its connection.
  /** The user's contact `id` as the dispatch reads it, for a preview of its text. */
  async contactOf(userId: number, id: number): Promise<ContactRow | undefined> {
    const [row] = await this.runner.run(userContact(userId, id));
    return row;
  }

  async isOwnPhone(userId: number, phoneId: number, manager?: EntityManager): Promise<boolean> {
    return this.owns(this.ownPhone, userId, phoneId, manager);
  }

  async isOwnPhoneGroup(
    userId: number,
    phoneGroupId: number,
    manager?: EntityManager,
  ): Promise<boolean> {
    return this.owns(this.ownPhoneGroup, userId, phoneGroupId, manager);
  }

  private async owns(
    sql: string,
    userId: number,
    id: number,
    manager?: EntityManager,
  ): Promise<boolean> {
    const rows = manager
      ? await manager.query<unknown[]>(sql, [id, userId])
      : await this.sql.select(sql, [id, userId]);
    return rows.length > 0;
  }

  /**
   * The first of `ids` that is not one of the user's entries of that kind, if any; within a
   * transaction (`manager`), read there.
   */
  async firstNotOwned(
    kind: Recipients,
    userId: number,
    ids: readonly number[],
    manager?: EntityManager,
  ): Promise<number | undefined> {
    const owned = new Set<number>();
    for (const chunk of chunks(ids, IDS_PER_QUERY)) {
      const rows = await (manager ?? this.dataSource)
        .createQueryBuilder()
        .select('t.id', 'id')
        .from(RECIPIENT_ENTITIES[kind], 't')
        .where('t.id_user = :userId', { userId })
        .andWhere('t.id IN (:...ids)', { ids: chunk })
        .getRawMany<{ id: number | string }>();
      rows.forEach((row) => owned.add(Number(row.id)));
    }
    return ids.find((id) => !owned.has(id));
  }

  /**
   * Writes the message, its numbers, its links to contacts, groups and conditional groups, and
   * its medias with their links, as one unit (a savepoint in the transaction it shares with
   * the messages of concurrent requests): a failure leaves none of them behind. Returns the
   * new message's id once that transaction is committed. get_send_sms and post_scheduled sit
   * on this path: the statements are written here and run on the driver (see DriverSql).
   *
   * A message of more than NUMBERS_PER_TRANSACTION numbers is written hidden, in parts
   * (HiddenScheduledWriter).
   */
  async create(message: NewScheduled): Promise<number> {
    return message.numbers.length <= NUMBERS_PER_TRANSACTION
      ? this.sql.insert(this.rows.message(message))
      : this.hidden.create(message);
  }

  /**
   * What `create` writes, inside a transaction the caller holds: a STOP reply is scheduled in
   * the transaction that stores the message it answers.
   */
  async insert(manager: EntityManager, message: NewScheduled): Promise<number> {
    return insertWith(manager, this.rows.message(message));
  }

  /**
   * Updates one of the user's messages that the dispatch has not taken, in one transaction that
   * holds its row: `change` reads the stored message and says what it becomes (its errors undo
   * everything), then `present` reads the result in the same transaction. Null when the user has
   * no such message, or when the dispatch has taken it (deleted it once queued, or started
   * queueing it in chunks: `expansion_phase`). The dispatch takes a message under the same row
   * lock (skipping it while an update holds it; on SQLite one transaction runs at a time), so
   * either the update commits before the message is taken, and is what gets sent, or it finds
   * the message taken and changes nothing.
   */
  async updateOwn<T>(
    userId: number,
    id: number,
    change: (stored: StoredMessage, manager: EntityManager) => Promise<MessageChange>,
    present: (manager: EntityManager) => Promise<T>,
  ): Promise<T | null> {
    const mysql = this.dataSource.options.type === 'mysql';
    const work = async (manager: EntityManager): Promise<T | null> => {
      const [found] = await manager.query<ScheduledRow[]>(
        'SELECT at, text, flash, mms, tag, priority, id_phone, id_phone_group, validity, ' +
          'send_window, expansion_phase ' +
          'FROM scheduled WHERE id = ? AND id_user = ? AND hidden = 0' +
          (mysql ? ' FOR UPDATE' : ''),
        [id, userId],
      );
      if (!found || found.expansion_phase !== null) {
        return null;
      }
      const updated = await change(await this.storedMessage(manager, id, found), manager);
      await this.write(manager, id, updated);
      return present(manager);
    };
    // READ COMMITTED on MySQL, as deleteOwn: no gap locks on the link tables it rewrites.
    return mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }

  private async storedMessage(
    manager: EntityManager,
    id: number,
    row: ScheduledRow,
  ): Promise<StoredMessage> {
    const ids = async (table: string, column: string) =>
      (
        await manager.query<Array<{ id: number | string }>>(
          `SELECT ${column} AS id FROM ${table} WHERE id_scheduled = ? ORDER BY id`,
          [id],
        )
      ).map((link) => Number(link.id));
    return {
      at: String(row.at).slice(0, 19),
      text: row.text,
      flash: Number(row.flash) === 1,
      mms: Number(row.mms) === 1,
      tag: row.tag,
      priority: messagePriority(Number(row.priority)),
      phoneId: row.id_phone === null ? null : Number(row.id_phone),
      phoneGroupId: row.id_phone_group === null ? null : Number(row.id_phone_group),
      validity: row.validity === null ? null : Number(row.validity),
      window: row.send_window,
      numbers: (
        await manager.query<Array<{ number: string; data: string | null }>>(
          'SELECT number, data FROM scheduled_number WHERE id_scheduled = ? ORDER BY id',
          [id],
        )
      ).map(({ number, data }) => ({ number, data: data ?? '[]' })),
      contactIds: await ids('scheduled_contact', 'id_contact'),
      groupIds: await ids('scheduled_group', 'id_group'),
      conditionalGroupIds: await ids('scheduled_conditional_group', 'id_conditional_group'),
    };
  }

  /** The message's row rewritten, and the lists of `change` that were sent replaced. */
  private async write(manager: EntityManager, id: number, change: MessageChange): Promise<void> {
    const { message } = change;
    const now = nowUtc();
    await manager.query(
      'UPDATE scheduled SET at = ?, text = ?, flash = ?, mms = ?, tag = ?, id_phone = ?, ' +
        'id_phone_group = ?, validity = ?, priority = ?, send_window = ?, effective_window = ?, ' +
        'send_after = ?, updated_at = ? WHERE id = ?',
      [...messageValues(message), now, id],
    );
    const replaced: Array<[string, boolean]> = [
      ['scheduled_number', change.replaces.numbers],
      ['scheduled_contact', change.replaces.contacts],
      ['scheduled_group', change.replaces.groups],
      ['scheduled_conditional_group', change.replaces.conditional_groups],
    ];
    for (const [table, replace] of replaced) {
      if (replace) {
        await manager.query(`DELETE FROM ${table} WHERE id_scheduled = ?`, [id]);
      }
    }
    const stamp = [now, null];
    for (const list of LISTS) {
      if (change.replaces[list]) {
        for (const statement of this.rows.list(list, id, message, stamp)) {
          await insertWith(manager, statement);
        }
      }
    }
  }

  /**
   * Deletes one of the user's messages; its numbers and links go with it (foreign keys), and so
   * do the rows of its medias, which were uploaded for it alone. Returns those medias, for their
   * files to be removed, or null when the user has no such message (on MySQL, also when a worker
   * has just taken it to send it). READ COMMITTED on MySQL: no gap locks on the link tables.
   *
   * A message the dispatch has started to queue (`expansion_phase`) stops there: the outbox
   * rows already queued carry its medias, which stay until the media collection finds them
   * unused. Its row is locked first, so that no worker queues more of it in between.
   */
  async deleteOwn(userId: number, id: number): Promise<StoredMedia[] | null> {
    const mysql = this.dataSource.options.type === 'mysql';
    const work = async (manager: EntityManager) => {
      const medias = await this.medias.linkedToScheduled(manager, id);
      const [found] = await manager.query<Array<{ expansion_phase: string | null }>>(
        'SELECT expansion_phase FROM scheduled WHERE id = ? AND id_user = ? AND hidden = 0' +
          (mysql ? ' FOR UPDATE' : ''),
        [id, userId],
      );
      const result = await manager
        .createQueryBuilder()
        .delete()
        .from(Scheduled)
        .where('id = :id AND id_user = :userId AND hidden = 0', { id, userId })
        .execute();
      if (!found || (result.affected ?? 0) === 0) {
        return null;
      }
      return found.expansion_phase === null ? this.medias.deleteOrphans(manager, medias) : [];
    };
    return mysql
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }
}
