import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKeyOptions,
  TableIndexOptions,
} from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * The whole schema of the API and the dispatch, written with the QueryRunner schema API so that
 * one migration serves SQLite and MySQL/MariaDB. Datetimes are DATETIME columns holding UTC
 * `YYYY-MM-DD HH:MM:SS` values (text on SQLite), so that both engines compare them the same way.
 * Every listed table has an `(id_user, id)` index: listings are `WHERE id_user = ? ORDER BY id`.
 */

const int = (name: string, extra: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
  name,
  type: 'integer',
  ...extra,
});
const nullableInt = (name: string): TableColumnOptions => int(name, { isNullable: true });
const str = (
  name: string,
  length: number,
  extra: Partial<TableColumnOptions> = {},
): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  charset: 'utf8mb4',
  ...extra,
});
const text = (name: string, extra: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
  name,
  type: 'text',
  charset: 'utf8mb4',
  isNullable: true,
  ...extra,
});
const bool = (name: string): TableColumnOptions => ({ name, type: 'tinyint', default: 0 });
const datetime = (name: string, extra: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
  name,
  type: 'datetime',
  ...extra,
});
const index = (table: string, columns: string[], isUnique = false): TableIndexOptions => ({
  name: `${isUnique ? 'uq' : 'ix'}_${table}_${columns.join('_')}`,
  columnNames: columns,
  isUnique,
});

interface TableSpec {
  name: string;
  columns: TableColumnOptions[];
  foreignKeys?: TableForeignKeyOptions[];
  indices?: string[][];
  uniques?: string[][];
}

/** A link table between two entities, with an index on each side. */
const link = (name: string, left: [string, string], right: [string, string]): TableSpec => ({
  name,
  columns: [idColumn(), int(left[0]), int(right[0]), ...timestampColumns()],
  foreignKeys: [foreignKey(left[0], left[1]), foreignKey(right[0], right[1])],
  uniques: [[left[0], right[0]]],
  indices: [[right[0]]],
});

const TABLES: TableSpec[] = [
  {
    name: 'user',
    columns: [
      idColumn(),
      str('email', 150),
      // SHA-256 of the API key, hex: the key itself is never stored (docs/api-choices.md#api-keys).
      str('api_key_hash', 64),
      bool('admin'),
      str('status', 16, { default: "'active'" }),
      ...timestampColumns(),
    ],
    uniques: [['email'], ['api_key_hash']],
  },
  {
    name: 'setting',
    columns: [
      idColumn(),
      int('id_user'),
      str('name', 50),
      str('value', 1000),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'name']],
  },
  {
    name: 'phone',
    columns: [
      idColumn(),
      int('id_user'),
      str('name', 150),
      str('adapter', 100),
      text('adapter_data'),
      int('priority', { default: 0 }),
      str('status', 20, { default: "'available'" }),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'name']],
    indices: [['id_user', 'id']],
  },
  {
    name: 'phone_limit',
    columns: [
      idColumn(),
      int('id_phone'),
      int('volume'),
      str('startpoint', 254),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_phone', 'phone')],
    indices: [['id_phone']],
  },
  {
    name: 'phone_group',
    columns: [idColumn(), int('id_user'), str('name', 100), ...timestampColumns()],
    foreignKeys: [foreignKey('id_user', 'user')],
    indices: [['id_user', 'id']],
  },
  link('phone_group_phone', ['id_phone_group', 'phone_group'], ['id_phone', 'phone']),
  {
    name: 'contact',
    columns: [
      idColumn(),
      int('id_user'),
      str('name', 100),
      str('number', 20),
      text('data'),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'name']],
    // (id_user, number): recipients are matched against contacts and the STOP list by number.
    indices: [
      ['id_user', 'id'],
      ['id_user', 'number'],
    ],
  },
  {
    // The API's `group` entry type; `group` is a reserved word in SQL.
    name: 'contact_group',
    columns: [idColumn(), int('id_user'), str('name', 100), ...timestampColumns()],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'name']],
    indices: [['id_user', 'id']],
  },
  link('group_contact', ['id_group', 'contact_group'], ['id_contact', 'contact']),
  {
    name: 'conditional_group',
    columns: [
      idColumn(),
      int('id_user'),
      str('name', 100),
      text('condition'),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'name']],
    indices: [['id_user', 'id']],
  },
  {
    name: 'media',
    columns: [idColumn(), int('id_user'), str('path', 1000), ...timestampColumns()],
    foreignKeys: [foreignKey('id_user', 'user')],
    indices: [['id_user', 'id']],
  },
  {
    name: 'scheduled',
    columns: [
      idColumn(),
      int('id_user'),
      datetime('at'),
      str('text', 1000),
      bool('flash'),
      nullableInt('id_phone'),
      nullableInt('id_phone_group'),
      bool('mms'),
      str('tag', 1000, { isNullable: true }),
      ...timestampColumns(),
    ],
    foreignKeys: [
      foreignKey('id_user', 'user'),
      foreignKey('id_phone', 'phone', 'SET NULL'),
      foreignKey('id_phone_group', 'phone_group', 'SET NULL'),
    ],
    // (at): the dispatch worker's scan for due messages.
    indices: [['id_user', 'id'], ['at'], ['id_phone'], ['id_phone_group']],
  },
  {
    name: 'scheduled_number',
    columns: [
      idColumn(),
      int('id_scheduled'),
      str('number', 20),
      text('data'),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_scheduled', 'scheduled')],
    indices: [['id_scheduled']],
  },
  link('scheduled_contact', ['id_scheduled', 'scheduled'], ['id_contact', 'contact']),
  link('scheduled_group', ['id_scheduled', 'scheduled'], ['id_group', 'contact_group']),
  link(
    'scheduled_conditional_group',
    ['id_scheduled', 'scheduled'],
    ['id_conditional_group', 'conditional_group'],
  ),
  {
    name: 'sended',
    columns: [
      idColumn(),
      int('id_user'),
      nullableInt('id_phone'),
      datetime('at'),
      str('text', 1000),
      str('destination', 20),
      bool('flash'),
      bool('mms'),
      str('status', 16, { default: "'unknown'" }),
      text('error'),
      // Null when the message never reached a provider (it failed before, with `error`).
      str('uid', 100, { isNullable: true }),
      str('adapter', 100),
      // As long as scheduled.tag: RaspiSMS's 255 made long tags fail at send time.
      str('tag', 1000, { isNullable: true }),
      nullableInt('originating_scheduled'),
      int('segments', { default: 1 }),
      str('encoding', 8, { default: "'GSM-7'" }),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_phone', 'phone', 'SET NULL')],
    indices: [
      ['id_user', 'id'],
      // Usage and phone-limit counts: per phone, since a date.
      ['id_user', 'id_phone', 'at'],
      // Invalid numbers: per destination, by status.
      ['id_user', 'destination', 'status'],
      // Status statistics: per day, phone and status within a period.
      ['id_user', 'at', 'id_phone', 'status'],
      // Delivery receipts find their message by the provider's id.
      ['uid'],
      ['originating_scheduled'],
    ],
  },
  {
    name: 'received',
    columns: [
      idColumn(),
      int('id_user'),
      nullableInt('id_phone'),
      datetime('at'),
      str('text', 1000),
      str('origin', 20),
      bool('command'),
      str('status', 16, { default: "'unread'" }),
      bool('mms'),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_phone', 'phone', 'SET NULL')],
    indices: [
      ['id_user', 'id'],
      ['id_user', 'origin'],
    ],
  },
  link('media_scheduled', ['id_media', 'media'], ['id_scheduled', 'scheduled']),
  link('media_sended', ['id_media', 'media'], ['id_sended', 'sended']),
  link('media_received', ['id_media', 'media'], ['id_received', 'received']),
  {
    name: 'smsstop',
    columns: [idColumn(), int('id_user'), str('number', 20), ...timestampColumns()],
    foreignKeys: [foreignKey('id_user', 'user')],
    uniques: [['id_user', 'number']],
  },
  {
    // The dispatch queue: one row per recipient of a dispatched message until its `sended` row
    // exists. Claimed rows carry their worker and claim time, so a dead worker's sends are found.
    name: 'outbox',
    columns: [
      idColumn(),
      int('id_user'),
      int('originating_scheduled'),
      nullableInt('id_phone'),
      nullableInt('id_phone_group'),
      str('destination', 20),
      str('text', 1000),
      bool('flash'),
      bool('mms'),
      str('tag', 1000, { isNullable: true }),
      text('media_ids'),
      str('state', 16, { default: "'queued'" }),
      int('attempts', { default: 0 }),
      datetime('next_attempt_at'),
      str('claimed_by', 64, { isNullable: true }),
      datetime('claimed_at', { isNullable: true }),
      text('error'),
      ...timestampColumns(),
    ],
    foreignKeys: [foreignKey('id_user', 'user')],
    indices: [['state', 'next_attempt_at'], ['claimed_by'], ['id_phone', 'state']],
  },
];

export class InitialSchema1732230000000 implements MigrationInterface {
  name = 'InitialSchema1732230000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const spec of TABLES) {
      await queryRunner.createTable(
        new Table({
          name: spec.name,
          columns: spec.columns,
          foreignKeys: spec.foreignKeys,
          indices: [
            ...(spec.uniques ?? []).map((columns) => index(spec.name, columns, true)),
            ...(spec.indices ?? []).map((columns) => index(spec.name, columns)),
          ],
          engine: 'InnoDB',
        }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const spec of [...TABLES].reverse()) {
      await queryRunner.dropTable(spec.name);
    }
  }
}
