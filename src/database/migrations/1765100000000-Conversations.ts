import { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Conversations (docs/api.md#conversations): a number's newest message and its thread are read
 * newest first on `(id_user, destination, at)` and `(id_user, origin, at)`; the existing
 * `(id_user, destination, status)` and `(id_user, origin)` stay for the invalid numbers and the
 * listing filters, which need their order. The walk over a user's messages by time uses the
 * `(id_user, at, …)` indexes already there.
 */
const INDEXES: Array<[string, string[]]> = [
  ['sended', ['id_user', 'destination', 'at']],
  ['received', ['id_user', 'origin', 'at']],
];

export class Conversations1765100000000 implements MigrationInterface {
  name = 'Conversations1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of INDEXES) {
      await queryRunner.query(
        `CREATE INDEX ix_${table}_${columns.join('_')} ON ${table} (${columns.join(', ')})`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    for (const [table, columns] of [...INDEXES].reverse()) {
      const index = `ix_${table}_${columns.join('_')}`;
      await queryRunner.query(mysql ? `DROP INDEX ${index} ON ${table}` : `DROP INDEX ${index}`);
    }
  }
}
