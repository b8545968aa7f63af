import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { ConditionalGroup } from '../contacts/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group } from '../contacts/entities/group.entity';
import { Media, MediaScheduled } from '../media/entities/media.entity';
import { PhoneGroup } from '../phones/entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from './entities/scheduled.entity';

/** A recipient number as stored: E.164 and a JSON string of template data. */
export interface RecipientNumber {
  number: string;
  data: string;
}

/** Everything one scheduled message is made of, checked and normalised by the service. */
export interface NewScheduled {
  userId: number;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
  text: string;
  flash: boolean;
  mms: boolean;
  tag: string | null;
  phoneId: number | null;
  phoneGroupId: number | null;
  numbers: RecipientNumber[];
  contactIds: number[];
  groupIds: number[];
  conditionalGroupIds: number[];
  /** Media files already in the media folder, relative to it. */
  mediaPaths: string[];
}

/** The entries a scheduled message may name, by parameter. */
export type Recipients = 'contacts' | 'groups' | 'conditional_groups';

const RECIPIENT_ENTITIES: Record<Recipients, EntityTarget<ObjectLiteral>> = {
  contacts: Contact,
  groups: Group,
  conditional_groups: ConditionalGroup,
};

/** Ids per `IN (…)` list: far below SQLite's 32,766 bound variables. */
const IDS_PER_QUERY = 1000;
/** Rows per multi-row INSERT, and bytes, to stay below MySQL's max_allowed_packet. */
const ROWS_PER_INSERT = 1000;
const BYTES_PER_INSERT = 1024 * 1024;

@Injectable()
export class ScheduledRepository {
  constructor(private readonly dataSource: DataSource) {}

  async isOwnPhone(userId: number, phoneId: number): Promise<boolean> {
    return this.dataSource.getRepository(Phone).exists({ where: { id: phoneId, id_user: userId } });
  }

  async isOwnPhoneGroup(userId: number, phoneGroupId: number): Promise<boolean> {
    return this.dataSource
      .getRepository(PhoneGroup)
      .exists({ where: { id: phoneGroupId, id_user: userId } });
  }

  /** The first of `ids` that is not one of the user's entries of that kind, if any. */
  async firstNotOwned(
    kind: Recipients,
    userId: number,
    ids: readonly number[],
  ): Promise<number | undefined> {
    const owned = new Set<number>();
    for (const chunk of chunks(ids, IDS_PER_QUERY)) {
      const rows = await this.dataSource
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
   * its medias with their links, in one transaction: a failure leaves none of them behind.
   * Returns the new message's id.
   */
  async create(message: NewScheduled): Promise<number> {
    return this.dataSource.transaction((manager) => this.insert(manager, message));
  }

  /**
   * What `create` writes, inside a transaction the caller holds: a STOP reply is scheduled in
   * the transaction that stores the message it answers.
   */
  async insert(manager: EntityManager, message: NewScheduled): Promise<number> {
    const stamp = { created_at: nowUtc(), updated_at: null };
    const id_scheduled = await insertOne(manager, Scheduled, {
      id_user: message.userId,
      at: message.at,
      text: message.text,
      flash: message.flash ? 1 : 0,
      mms: message.mms ? 1 : 0,
      tag: message.tag,
      id_phone: message.phoneId,
      id_phone_group: message.phoneGroupId,
      ...stamp,
    });
    await insertMany(
      manager,
      ScheduledNumber,
      message.numbers.map(({ number, data }) => ({ id_scheduled, number, data, ...stamp })),
    );
    await insertMany(
      manager,
      ScheduledContact,
      message.contactIds.map((id_contact) => ({ id_scheduled, id_contact, ...stamp })),
    );
    await insertMany(
      manager,
      ScheduledGroup,
      message.groupIds.map((id_group) => ({ id_scheduled, id_group, ...stamp })),
    );
    await insertMany(
      manager,
      ScheduledConditionalGroup,
      message.conditionalGroupIds.map((id_conditional_group) => ({
        id_scheduled,
        id_conditional_group,
        ...stamp,
      })),
    );
    for (const path of message.mediaPaths) {
      const id_media = await insertOne(manager, Media, {
        id_user: message.userId,
        path,
        ...stamp,
      });
      await insertMany(manager, MediaScheduled, [{ id_media, id_scheduled, ...stamp }]);
    }
    return id_scheduled;
  }

  /** Deletes one of the user's messages; its numbers and links go with it (foreign keys). */
  async deleteOwn(userId: number, id: number): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(Scheduled)
      .where('id = :id AND id_user = :userId', { id, userId })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}

/**
 * One row, written as `insertMany` writes them, returning its generated id. get_send_sms and
 * post_scheduled sit on this path: the query builder's per-statement work was a large part of
 * their cost (bench:api).
 */
async function insertOne<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  row: Partial<T>,
): Promise<number> {
  const [sql, parameters] = insertStatement(manager, entity, [row]);
  const result: unknown = await manager.query(sql, parameters);
  // better-sqlite3 answers an INSERT with the new rowid, mysql2 with a header holding it.
  return typeof result === 'number' || typeof result === 'bigint'
    ? Number(result)
    : Number((result as { insertId: number }).insertId);
}

function insertStatement<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  rows: Array<Partial<T>>,
): [string, unknown[]] {
  const driver = manager.connection.driver;
  const columns = Object.keys(rows[0]);
  const sql =
    `INSERT INTO ${driver.escape(manager.connection.getMetadata(entity).tableName)} ` +
    `(${columns.map((column) => driver.escape(column)).join(', ')}) VALUES ` +
    rows.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
  return [
    sql,
    rows.flatMap((row) => columns.map((column) => (row as Record<string, unknown>)[column])),
  ];
}

/**
 * Multi-row INSERTs: a CSV may bring 200,000 numbers, which must cost neither a query each nor
 * the query builder's per-value work (seconds at that size): the statement is written here, with
 * bound parameters. The rows all have the keys of the first one.
 */
async function insertMany<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  rows: Array<Partial<T>>,
): Promise<void> {
  let chunk: Array<Partial<T>> = [];
  let bytes = 0;
  for (const row of rows) {
    const size = Object.values(row).reduce<number>(
      (total, value) => total + (typeof value === 'string' ? Buffer.byteLength(value) : 8),
      0,
    );
    if (chunk.length === ROWS_PER_INSERT || (chunk.length > 0 && bytes + size > BYTES_PER_INSERT)) {
      await manager.query(...insertStatement(manager, entity, chunk));
      chunk = [];
      bytes = 0;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) {
    await manager.query(...insertStatement(manager, entity, chunk));
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) {
    result.push(items.slice(i, i + size));
  }
  return result;
}
