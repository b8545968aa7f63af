import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { foreignKey, idColumn } from './table-parts';

/*
 * Every attempt of a webhook delivery (docs/api.md#get_webhook_deliveries): when it started, how
 * long it took, the HTTP status or why there was none, and an excerpt of the answer, as
 * `webhook_delivery.last_*` keep them for the latest attempt only. Written by the deliverer in
 * the transaction that records the delivery's outcome; removed with its delivery.
 * `(id_delivery, id)`: one delivery's attempts, newest first, and the cascade of a purge.
 */
export class WebhookAttempts1765360000000 implements MigrationInterface {
  name = 'WebhookAttempts1765360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhook_attempt',
        columns: [
          idColumn(),
          { name: 'id_delivery', type: 'integer' },
          { name: 'started_at', type: 'datetime' },
          { name: 'duration_ms', type: 'integer' },
          { name: 'http_status', type: 'integer', isNullable: true },
          { name: 'answer', type: 'text', charset: 'utf8mb4', isNullable: true },
          { name: 'error', type: 'text', charset: 'utf8mb4', isNullable: true },
        ],
        foreignKeys: [foreignKey('id_delivery', 'webhook_delivery')],
        indices: [
          { name: 'ix_webhook_attempt_id_delivery_id', columnNames: ['id_delivery', 'id'] },
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_attempt');
  }
}
