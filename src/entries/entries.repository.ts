import { Injectable } from '@nestjs/common';
import {
  DataSource,
  EntityManager,
  EntityTarget,
  ObjectLiteral,
  QueryRunner,
  SelectQueryBuilder,
} from 'typeorm';
import { ConditionalGroup } from '../conditional-groups/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group, GroupContact } from '../groups/entities/group.entity';
import { Media, MediaReceived, MediaScheduled, MediaSended } from '../media/entities/media.entity';
import { Received } from '../received/entities/received.entity';
import { Sended } from '../sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../phone-groups/entities/phone-group.entity';
import { PhoneLimit } from '../phones/entities/phone-limit.entity';
import { Phone } from '../phones/entities/phone.entity';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from '../scheduled/entities/scheduled.entity';
import { applyCursor } from '../common/paging/cursor-query';
import { Cursor } from '../common/paging/cursor';
import { Filter } from './entries.params';
import { EntryType } from './entry-types';

export type Row = Record<string, unknown>;

const TIMESTAMPS = ['created_at', 'updated_at'];

/** The columns each listing returns, in RaspiSMS's order where it has them. */
// prettier-ignore
const COLUMNS = {
  sended: [
    'id', 'id_user', 'id_phone', 'at', 'text', 'destination', 'flash', 'mms', 'status', 'error',
    'uid', 'adapter', 'tag', 'originating_scheduled', 'segments', 'encoding', ...TIMESTAMPS,
    'refusals',
  ],
  received: [
    'id', 'id_user', 'id_phone', 'at', 'text', 'origin', 'command', 'status', 'mms', ...TIMESTAMPS,
  ],
  scheduled: [
    'id', 'id_user', 'at', 'text', 'flash', 'id_phone', 'id_phone_group', 'mms', 'tag',
    ...TIMESTAMPS, 'validity', 'priority', 'send_window', 'send_after',
  ],
  scheduled_number: ['id', 'id_scheduled', 'number', 'data', ...TIMESTAMPS],
  contact: ['id', 'id_user', 'name', 'number', 'data', ...TIMESTAMPS],
  group: ['id', 'id_user', 'name', ...TIMESTAMPS],
  conditional_group: ['id', 'id_user', 'name', 'condition', ...TIMESTAMPS],
  phone: [
    'id', 'id_user', 'name', 'adapter', 'adapter_data', 'priority', 'status', ...TIMESTAMPS,
    'rate', 'callback_token',
  ],
  phone_group: ['id', 'id_user', 'name', ...TIMESTAMPS],
  media: ['id', 'id_user', 'path', ...TIMESTAMPS],
  media_link: ['id', 'id_user', 'path'],
} as const;

const ENTITIES: Record<EntryType, EntityTarget<ObjectLiteral>> = {
  sended: Sended,
  received: Received,
  scheduled: Scheduled,
  contact: Contact,
  group: Group,
  conditional_group: ConditionalGroup,
  phone: Phone,
  phone_group: PhoneGroup,
  media: Media,
};

/**
 * `query` scoped to the user's rows of a type that are listed: all of them, but a scheduled
 * message while it is hidden (src/messages/hidden-messages.ts).
 */
function listedOf(
  query: SelectQueryBuilder<ObjectLiteral>,
  type: EntryType,
  alias: string,
  userId: number,
): SelectQueryBuilder<ObjectLiteral> {
  query.where(`${alias}.id_user = :userId`, { userId });
  return type === 'scheduled' ? query.andWhere(`${alias}.hidden = 0`) : query;
}

/** Rows of `related` linked to owners, as `[owner id, related row]` pairs ordered by related id. */
type Linked = Array<[number, Row]>;

/**
 * Listing queries. Every one is scoped by the caller's id, and a page costs a fixed number of
 * queries: one for the entries, then one per extra field for the whole page (`IN (ids)`).
 */
@Injectable()
export class EntriesRepository {
  /** The connection of a transaction these queries belong to, if any. */
  private runner?: QueryRunner;

  constructor(private readonly dataSource: DataSource) {}

  /** The same queries, run in the transaction `manager` holds (what an update answers). */
  within(manager: EntityManager): EntriesRepository {
    const scoped = new EntriesRepository(this.dataSource);
    scoped.runner = manager.queryRunner;
    return scoped;
  }

  private queryBuilder(): SelectQueryBuilder<ObjectLiteral> {
    return this.dataSource.createQueryBuilder(this.runner) as SelectQueryBuilder<ObjectLiteral>;
  }

  /**
   * One page of the user's entries of a type, ascending by id. The page's ids are found first
   * on the `(id_user, id)` index alone, then their rows are read: given the whole row to fetch,
   * MariaDB walked the user's index entries from their first one to the cursor (30 ms at 500,000
   * entries, bench:api), and an OFFSET skips index entries instead of rows.
   */
  async listPage(
    type: EntryType,
    userId: number,
    cursor: Cursor,
    filters: readonly Filter[],
  ): Promise<Row[]> {
    const entity = ENTITIES[type];
    const ids = listedOf(
      this.queryBuilder().select('p.id', 'id').from(entity, 'p'),
      type,
      'p',
      userId,
    );
    const mysql = this.dataSource.options.type === 'mysql';
    filters.forEach((filter, index) => ids.andWhere(...condition('p', filter, index, mysql)));
    applyCursor(ids, 'p', cursor);
    const rows = await this.select(entity, 't', COLUMNS[type])
      .innerJoin(`(${ids.getQuery()})`, 'k', 'k.id = t.id')
      .setParameters(ids.getParameters())
      .orderBy('t.id', 'ASC')
      .getRawMany<Row>();
    return rows.map((row) => inOrder(row, COLUMNS[type]));
  }

  /** The user's entry `id` of a type, with the columns of its listing; undefined when none. */
  async findOne(type: EntryType, userId: number, id: number): Promise<Row | undefined> {
    const row = await listedOf(this.select(ENTITIES[type], 't', COLUMNS[type]), type, 't', userId)
      .andWhere('t.id = :id', { id })
      .getRawOne<Row>();
    return row && inOrder(row, COLUMNS[type]);
  }

  /** The user's entries `ids` of a type, with the columns of their listing, in id order. */
  async findMany(type: EntryType, userId: number, ids: readonly number[]): Promise<Row[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows = await listedOf(this.select(ENTITIES[type], 't', COLUMNS[type]), type, 't', userId)
      .andWhere('t.id IN (:...ids)', { ids })
      .orderBy('t.id', 'ASC')
      .getRawMany<Row>();
    return rows.map((row) => inOrder(row, COLUMNS[type]));
  }

  medias(owner: 'scheduled' | 'sended' | 'received', ids: number[]): Promise<Linked> {
    const link = { scheduled: MediaScheduled, sended: MediaSended, received: MediaReceived }[owner];
    return this.linked(Media, COLUMNS.media_link, link, 'id_media', `id_${owner}`, ids);
  }

  async scheduledNumbers(ids: number[]): Promise<Linked> {
    if (ids.length === 0) {
      return [];
    }
    const rows = await this.select(ScheduledNumber, 'n', COLUMNS.scheduled_number)
      .where('n.id_scheduled IN (:...ids)', { ids })
      .orderBy('n.id', 'ASC')
      .getRawMany<Row>();
    return rows.map((row) => [Number(row.id_scheduled), inOrder(row, COLUMNS.scheduled_number)]);
  }

  scheduledContacts(ids: number[]): Promise<Linked> {
    return this.linked(
      Contact,
      COLUMNS.contact,
      ScheduledContact,
      'id_contact',
      'id_scheduled',
      ids,
    );
  }

  scheduledGroups(ids: number[]): Promise<Linked> {
    return this.linked(Group, COLUMNS.group, ScheduledGroup, 'id_group', 'id_scheduled', ids);
  }

  scheduledConditionalGroups(ids: number[]): Promise<Linked> {
    return this.linked(
      ConditionalGroup,
      COLUMNS.conditional_group,
      ScheduledConditionalGroup,
      'id_conditional_group',
      'id_scheduled',
      ids,
    );
  }

  groupContacts(ids: number[]): Promise<Linked> {
    return this.linked(Contact, COLUMNS.contact, GroupContact, 'id_contact', 'id_group', ids);
  }

  phoneGroupPhones(ids: number[]): Promise<Linked> {
    return this.linked(Phone, COLUMNS.phone, PhoneGroupPhone, 'id_phone', 'id_phone_group', ids);
  }

  /** The limits of the phones `ids`, each `{volume, startpoint}` under its phone, by id. */
  async phoneLimits(ids: number[]): Promise<Linked> {
    if (ids.length === 0) {
      return [];
    }
    const rows = await this.select(PhoneLimit, 'l', ['id_phone', 'volume', 'startpoint'])
      .where('l.id_phone IN (:...ids)', { ids })
      .orderBy('l.id', 'ASC')
      .getRawMany<Row>();
    return rows.map((row) => [
      Number(row.id_phone),
      { volume: Number(row.volume), startpoint: String(row.startpoint) },
    ]);
  }

  private select(
    entity: EntityTarget<ObjectLiteral>,
    alias: string,
    columns: readonly string[],
  ): SelectQueryBuilder<ObjectLiteral> {
    const query = this.queryBuilder().from(entity, alias);
    // Entity aliases let TypeORM quote each column for the engine (`condition` is reserved).
    columns.forEach((column, index) => {
      if (index === 0) {
        query.select(`${alias}.${column}`, column);
      } else {
        query.addSelect(`${alias}.${column}`, column);
      }
    });
    return query;
  }

  /** Rows of `entity` joined through a link table to owners among `ownerIds`. */
  private async linked(
    entity: EntityTarget<ObjectLiteral>,
    columns: readonly string[],
    link: new () => ObjectLiteral,
    linkToEntity: string,
    linkToOwner: string,
    ownerIds: number[],
  ): Promise<Linked> {
    if (ownerIds.length === 0) {
      return [];
    }
    const rows = await this.select(entity, 'e', columns)
      .addSelect(`l.${linkToOwner}`, 'link_owner')
      .innerJoin(link, 'l', `l.${linkToEntity} = e.id`)
      .where(`l.${linkToOwner} IN (:...ownerIds)`, { ownerIds })
      .orderBy('e.id', 'ASC')
      .getRawMany<Row>();
    return rows.map((row) => [Number(row.link_owner), inOrder(row, columns)]);
  }
}

const OPERATORS = { equals: '=', exact: '=', from: '>=', to: '<=' } as const;

/**
 * A filter as a condition with its parameters. Equalities on the indexed columns keep the
 * ids' query on `(id_user, column)`, whose entries are in id order within one value, so that a
 * filtered page is read without a sort. A name part is matched in `name_key`, the name as the
 * application lowercases it, under `!` as LIKE's escape (a backslash means something else in a
 * MySQL string). An exact text is found through the index under the column's collation, which
 * folds case on MySQL, then compared byte for byte.
 */
function condition(
  alias: string,
  filter: Filter,
  index: number,
  mysql: boolean,
): [string, Record<string, string | number>] {
  const parameter = `filter${index}`;
  const column = `${alias}.${filter.column}`;
  if (filter.op === 'contains') {
    return [
      `${column} LIKE :${parameter} ESCAPE '!'`,
      { [parameter]: `%${filter.value.replace(/[!%_]/g, '!$&')}%` },
    ];
  }
  const comparison = `${column} ${OPERATORS[filter.op]} :${parameter}`;
  return [
    filter.op === 'exact' && mysql
      ? `${comparison} AND BINARY ${column} = :${parameter}`
      : comparison,
    { [parameter]: filter.value },
  ];
}

/**
 * The row's `columns` in that order. TypeORM emits selected entity columns in the entity's
 * metadata order, where inherited ones (`created_at`, `updated_at`) come first, whatever order
 * they were selected in.
 */
function inOrder(row: Row, columns: readonly string[]): Row {
  return Object.fromEntries(columns.map((column) => [column, row[column]]));
}
