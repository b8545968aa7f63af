import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * The events to deliver to webhooks, one row per event and webhook, kept as the delivery log
 * (docs/api.md#webhook-deliveries). `(status, next_attempt_at)`: the deliverer's scan of what is
 * due; `(id_webhook, id)`: a webhook's log, newest first.
 */
export class WebhookDeliveries1764500000000 implements MigrationInterface {
  name = 'WebhookDeliveries1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhook_delivery',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'id_webhook', type: 'integer' },
          { name: 'event_id', type: 'varchar', length: '64' },
          { name: 'event_type', type: 'varchar', length: '32' },
          { name: 'event_at', type: 'datetime' },
          { name: 'payload', type: 'text', charset: 'utf8mb4' },
          { name: 'status', type: 'varchar', length: '16', default: "'pending'" },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'last_http_status', type: 'integer', isNullable: true },
          { name: 'last_error', type: 'text', charset: 'utf8mb4', isNullable: true },
          { name: 'next_attempt_at', type: 'datetime', isNullable: true },
          { name: 'delivered_at', type: 'datetime', isNullable: true },
          ...timestampColumns(),
        ],
        foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_webhook', 'webhook')],
        indices: [
          {
            name: 'ix_webhook_delivery_status_next_attempt_at',
            columnNames: ['status', 'next_attempt_at'],
          },
          { name: 'ix_webhook_delivery_id_webhook_id', columnNames: ['id_webhook', 'id'] },
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_delivery');
  }
}
