import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/*
 * The excerpt of the body a webhook's endpoint answered at a delivery's latest attempt, whatever
 * its status (docs/api.md#get_webhook_deliveries): `last_error` says why an attempt failed, this
 * says what the endpoint said, a 2xx included. Rows logged before it have none. Read only with
 * the row, by the indexes the log already has.
 */
export class WebhookDeliveryAnswer1765340000000 implements MigrationInterface {
  name = 'WebhookDeliveryAnswer1765340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'webhook_delivery',
      new TableColumn({ name: 'last_answer', type: 'text', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('webhook_delivery', 'last_answer');
  }
}
