import { MigrationInterface, QueryRunner } from 'typeorm';
import { nameKey } from '../../common/params/entry-name';

/** The tables whose entries have a name unique per user, case-insensitively. */
const NAMED = ['contact', 'contact_group', 'conditional_group', 'phone_group'];

/** The unique (id_user, name) indexes of the initial schema that `name_key` replaces. */
const CASE_SENSITIVE = ['contact', 'contact_group', 'conditional_group'];

/**
 * Indexes of the `get_entries` filters (docs/api.md#get_entries-filters). On both engines an
 * index's entries are ordered by id within equal keys (InnoDB appends the primary key, SQLite
 * the rowid), so `(id_user, status)` serves `WHERE id_user = ? AND status = ? AND id > ? ORDER
 * BY id LIMIT 25` without sorting: a filtered page stays flat as the table grows. Filters that
 * an index of the initial schema already serves get none: `destination` (id_user, destination,
 * status), `at` ranges (id_user, at, …), `originating_scheduled`, `received.origin`; pending
 * scheduled messages are few, and each index costs every insert of the hot paths.
 */
const FILTERS: Array<[string, string[]]> = [
  ['sended', ['id_user', 'status']],
  ['sended', ['id_user', 'id_phone']],
  ['sended', ['id_user', 'tag']],
  ['received', ['id_user', 'status']],
  ['received', ['id_user', 'id_phone']],
  ['received', ['id_user', 'at']],
  ['smsstop', ['id_user', 'id']],
];

/*
 * The management API (docs/api.md#managing-contacts-groups-and-more). Names of contacts, groups,
 * conditional groups and phone groups are unique per user case-insensitively on every engine:
 * `name_key` holds the name lowercased by the application (so that both engines compare the same
 * key: SQLite's lower() folds ASCII only, MariaDB's collations also fold accents), under a
 * binary collation on MySQL. It is nullable so that rows written without it (by hand, by an
 * older version) are never refused; the API always writes it.
 */
export class ManagementApi1764300000000 implements MigrationInterface {
  name = 'ManagementApi1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    for (const table of NAMED) {
      await queryRunner.query(
        `ALTER TABLE ${table} ADD COLUMN name_key varchar(100)` +
          (mysql ? ' CHARACTER SET utf8mb4 COLLATE utf8mb4_bin' : '') +
          ' NULL',
      );
      const rows = (await queryRunner.query(
        `SELECT id, id_user, name FROM ${table} ORDER BY id`,
      )) as NamedRow[];
      // Names that differ only by case were possible on SQLite: the later ones keep a null key.
      const seen = new Set<string>();
      for (const row of rows) {
        const key = nameKey(row.name);
        if (!seen.has(`${row.id_user}\n${key}`)) {
          seen.add(`${row.id_user}\n${key}`);
          await queryRunner.query(`UPDATE ${table} SET name_key = ? WHERE id = ?`, [key, row.id]);
        }
      }
      await queryRunner.query(
        `CREATE UNIQUE INDEX uq_${table}_id_user_name_key ON ${table} (id_user, name_key)`,
      );
    }
    for (const table of CASE_SENSITIVE) {
      await queryRunner.query(
        mysql
          ? `DROP INDEX uq_${table}_id_user_name ON ${table}`
          : `DROP INDEX uq_${table}_id_user_name`,
      );
    }
    for (const [table, columns] of FILTERS) {
      // MySQL indexes at most 3,072 bytes of a key: the first 191 characters of a tag.
      const indexed = columns.map((column) => (mysql && column === 'tag' ? 'tag(191)' : column));
      await queryRunner.query(
        `CREATE INDEX ix_${table}_${columns.join('_')} ON ${table} (${indexed.join(', ')})`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const drop = (table: string, index: string) =>
      queryRunner.query(mysql ? `DROP INDEX ${index} ON ${table}` : `DROP INDEX ${index}`);
    for (const [table, columns] of [...FILTERS].reverse()) {
      await drop(table, `ix_${table}_${columns.join('_')}`);
    }
    for (const table of CASE_SENSITIVE) {
      // Names that differ only by case cannot both stay under the case-sensitive index of
      // SQLite (nor under MariaDB's, which also folds accents): the later ones are renamed.
      const rows = (await queryRunner.query(
        `SELECT id, id_user, name FROM ${table} ORDER BY id`,
      )) as NamedRow[];
      const seen = new Set<string>();
      for (const row of rows) {
        const key = `${row.id_user}\n${mysql ? foldAccents(row.name) : row.name}`;
        if (seen.has(key)) {
          await queryRunner.query(`UPDATE ${table} SET name = ? WHERE id = ?`, [
            `${row.name.slice(0, 80)} #${row.id}`,
            row.id,
          ]);
        }
        seen.add(key);
      }
      await queryRunner.query(
        `CREATE UNIQUE INDEX uq_${table}_id_user_name ON ${table} (id_user, name)`,
      );
    }
    for (const table of [...NAMED].reverse()) {
      await drop(table, `uq_${table}_id_user_name_key`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN name_key`);
    }
  }
}

interface NamedRow {
  id: number;
  id_user: number;
  name: string;
}

/** Close to what MariaDB's default collation compares equal: case and accents folded. */
function foldAccents(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
