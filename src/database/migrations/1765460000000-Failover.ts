import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { foreignKey, idColumn } from './table-parts';

/*
 * Failover (docs/dispatch.md#failover).
 *
 * - `outbox.refusals` and `sended.refusals`: the refusals (JSON: phone, adapter, time, reason)
 *   of the phones a recipient went through before the one that sent it, or before the last one
 *   that refused it; null: none. The claim leaves those phones out.
 * - `send_refusal`: one row per such refusal, so that it counts in its phone's reliability
 *   figures as a failed send; read by user and time as the reliability check reads `sended`.
 */
export class Failover1765460000000 implements MigrationInterface {
  name = 'Failover1765460000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const refusals = () => new TableColumn({ name: 'refusals', type: 'text', isNullable: true });
    await queryRunner.addColumn('outbox', refusals());
    await queryRunner.addColumn('sended', refusals());
    await queryRunner.createTable(
      new Table({
        name: 'send_refusal',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'id_phone', type: 'integer' },
          { name: 'at', type: 'datetime' },
        ],
        // A refusal counts for its phone while it exists.
        foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_phone', 'phone')],
        indices: [
          new TableIndex({
            name: 'ix_send_refusal_id_user_at_id_phone',
            columnNames: ['id_user', 'at', 'id_phone'],
          }),
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('send_refusal');
    await queryRunner.dropColumn('sended', 'refusals');
    await queryRunner.dropColumn('outbox', 'refusals');
  }
}
