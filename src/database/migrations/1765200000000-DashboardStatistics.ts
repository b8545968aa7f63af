import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { foreignKey, idColumn } from './table-parts';

/*
 * What the dashboard's statistics read (docs/api.md#dashboard-statistics), each served without
 * grouping the messages themselves, so that its cost does not grow with the tables:
 *
 * - `message_count`: the user's messages per phone, kind (a sent message's current status, or
 *   `received`) and bucket: each message is counted in its UTC day (`YYYY-MM-DD`) and in its UTC
 *   quarter-hour (`YYYY-MM-DD HH:MM`), see src/messages/message-counts.ts, which keeps them on
 *   every write; filled here from the rows already there. Only messages with a phone are counted: a
 *   deleted phone's messages lose it, and its counts go with it (foreign key).
 * - `(id_user, expansion_phase, at)` on `scheduled` and `(id_user, originating_scheduled)` on
 *   `outbox`: the queue's three counts.
 * - `total` and `unreliable` on `phone_reliability_history`, the figures of the alert (null for the
 *   alerts recorded before), and `(id_user, created_at)`: a user's latest alerts.
 */

/** The buckets of `at` (`YYYY-MM-DD HH:MM:SS`) in SQL: its UTC day, its UTC quarter-hour. */
export function bucketsSql(mysql: boolean): string[] {
  return [
    'SUBSTR(at, 1, 10)',
    mysql
      ? "CONCAT(SUBSTR(at, 1, 14), LPAD((CAST(SUBSTR(at, 15, 2) AS UNSIGNED) DIV 15) * 15, 2, '0'))"
      : "SUBSTR(at, 1, 14) || printf('%02d', (CAST(SUBSTR(at, 15, 2) AS INTEGER) / 15) * 15)",
  ];
}

/** Counts the `sended` and `received` rows already there (bench/seed.ts counts its own). */
export async function countExisting(
  database: { query(sql: string): Promise<unknown> },
  mysql: boolean,
): Promise<void> {
  for (const bucket of bucketsSql(mysql)) {
    await database.query(
      'INSERT INTO message_count (id_user, id_phone, bucket, kind, nb) ' +
        `SELECT id_user, id_phone, ${bucket} AS b, status, COUNT(*) FROM sended ` +
        'WHERE id_phone IS NOT NULL GROUP BY id_user, id_phone, b, status',
    );
    await database.query(
      'INSERT INTO message_count (id_user, id_phone, bucket, kind, nb) ' +
        `SELECT id_user, id_phone, ${bucket} AS b, 'received', COUNT(*) FROM received ` +
        'WHERE id_phone IS NOT NULL GROUP BY id_user, id_phone, b',
    );
  }
}

export class DashboardStatistics1765200000000 implements MigrationInterface {
  name = 'DashboardStatistics1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'message_count',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'id_phone', type: 'integer' },
          // UTC `YYYY-MM-DD`, or `YYYY-MM-DD HH:MM` with the minutes 00, 15, 30 or 45.
          { name: 'bucket', type: 'varchar', length: '16' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'nb', type: 'integer', default: 0 },
        ],
        foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_phone', 'phone')],
        indices: [
          // The upserts' key, and the lookups of a period's buckets.
          {
            name: 'uq_message_count_id_user_bucket_id_phone_kind',
            columnNames: ['id_user', 'bucket', 'id_phone', 'kind'],
            isUnique: true,
          },
          { name: 'ix_message_count_id_phone', columnNames: ['id_phone'] },
        ],
        engine: 'InnoDB',
      }),
    );
    await countExisting(queryRunner, mysql);

    await queryRunner.createIndex(
      'scheduled',
      new TableIndex({
        name: 'ix_scheduled_id_user_expansion_phase_at',
        columnNames: ['id_user', 'expansion_phase', 'at'],
      }),
    );
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({
        name: 'ix_outbox_id_user_originating_scheduled',
        columnNames: ['id_user', 'originating_scheduled'],
      }),
    );

    await queryRunner.addColumns('phone_reliability_history', [
      new TableColumn({ name: 'total', type: 'integer', isNullable: true }),
      new TableColumn({ name: 'unreliable', type: 'integer', isNullable: true }),
    ]);
    await queryRunner.createIndex(
      'phone_reliability_history',
      new TableIndex({
        name: 'ix_phone_reliability_history_id_user_created_at',
        columnNames: ['id_user', 'created_at'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'mysql') {
      // InnoDB dropped the index it had made for each `id_user` foreign key once up's index
      // could serve it, and refuses to drop up's index without another in its place (made by an
      // earlier down when up runs again).
      for (const table of ['phone_reliability_history', 'outbox']) {
        const name = `ix_${table}_id_user`;
        const [found] = (await queryRunner.query(
          'SELECT COUNT(*) AS n FROM information_schema.STATISTICS ' +
            'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ?',
          [table, name],
        )) as Array<{ n: number | string }>;
        if (Number(found.n) === 0) {
          await queryRunner.createIndex(table, new TableIndex({ name, columnNames: ['id_user'] }));
        }
      }
    }
    await queryRunner.dropIndex(
      'phone_reliability_history',
      'ix_phone_reliability_history_id_user_created_at',
    );
    await queryRunner.dropColumns('phone_reliability_history', ['total', 'unreliable']);
    await queryRunner.dropIndex('outbox', 'ix_outbox_id_user_originating_scheduled');
    await queryRunner.dropIndex('scheduled', 'ix_scheduled_id_user_expansion_phase_at');
    await queryRunner.dropTable('message_count');
  }
}
