import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { timestampColumns } from './table-parts';

/*
 * What the dispatch needs beyond the initial outbox (and two of its indexes it does not need): the phone a claim chose (`via_phone`,
 * counted against that phone's limits while the send is in flight), one outbox row per
 * destination of a scheduled message (the unique index is how duplicates are dropped, first
 * occurrence winning), and the live workers, whose heartbeats tell which in-flight claims
 * belong to a worker that died.
 */
export class DispatchWorkers1763800000000 implements MigrationInterface {
  name = 'DispatchWorkers1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({ name: 'via_phone', type: 'integer', isNullable: true }),
    );
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({
        name: 'uq_outbox_originating_scheduled_destination',
        columnNames: ['originating_scheduled', 'destination'],
        isUnique: true,
      }),
    );
    // Serves the in-flight count of a phone's limit check.
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({ name: 'ix_outbox_via_phone_state', columnNames: ['via_phone', 'state'] }),
    );
    // Every claim and record rewrites outbox rows: indexes nothing reads only slow them down.
    // Claims are found by (state, next_attempt_at) and a worker's rows by primary key.
    await queryRunner.dropIndex('outbox', 'ix_outbox_claimed_by');
    await queryRunner.dropIndex('outbox', 'ix_outbox_id_phone_state');
    await queryRunner.createTable(
      new Table({
        name: 'worker',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'heartbeat_at', type: 'datetime' },
          ...timestampColumns(),
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('worker');
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({ name: 'ix_outbox_id_phone_state', columnNames: ['id_phone', 'state'] }),
    );
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({ name: 'ix_outbox_claimed_by', columnNames: ['claimed_by'] }),
    );
    await queryRunner.dropIndex('outbox', 'ix_outbox_via_phone_state');
    await queryRunner.dropIndex('outbox', 'uq_outbox_originating_scheduled_destination');
    await queryRunner.dropColumn('outbox', 'via_phone');
  }
}
