import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * Sending quotas (docs/dispatch.md#quotas): at most one per user, hence the unique `id_user`,
 * which also serves the claim's one lookup per batch. `consumed` holds the segments recorded as
 * handed to a provider in the current period, `reserved` those claimed and not recorded yet;
 * `alerted_close` and `alerted_reached` say which `quota` event the period has already had.
 * An outbox row keeps the segments its claim reserved in `quota_segments` (null without a
 * quota), so that whoever records it, its worker or the dead-worker sweep, settles them.
 */
export class Quotas1764700000000 implements MigrationInterface {
  name = 'Quotas1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'quota',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer', isUnique: true },
          { name: 'credit', type: 'integer' },
          { name: 'additional', type: 'integer', default: 0 },
          { name: 'consumed', type: 'integer', default: 0 },
          { name: 'reserved', type: 'integer', default: 0 },
          { name: 'start_date', type: 'datetime' },
          { name: 'expiration_date', type: 'datetime' },
          { name: 'renew_interval', type: 'varchar', length: '64', default: "'P1M'" },
          { name: 'auto_renew', type: 'tinyint', default: 0 },
          { name: 'report_unused', type: 'tinyint', default: 0 },
          { name: 'report_unused_additional', type: 'tinyint', default: 0 },
          { name: 'alerted_close', type: 'tinyint', default: 0 },
          { name: 'alerted_reached', type: 'tinyint', default: 0 },
          ...timestampColumns(),
        ],
        foreignKeys: [foreignKey('id_user', 'user')],
        engine: 'InnoDB',
      }),
    );
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({ name: 'quota_segments', type: 'integer', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('outbox', 'quota_segments');
    await queryRunner.dropTable('quota');
  }
}
