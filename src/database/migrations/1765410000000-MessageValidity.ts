import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/*
 * A message's validity (docs/dispatch.md#validity): `scheduled.validity`, the minutes after its
 * `at` within which it may still be handed to a provider (null: no limit), and
 * `outbox.expires_at`, that moment for each of its recipients, copied at expansion so that the
 * claim, the sender and a retry read it from the row they hold. Nothing queries by them: no index.
 */
export class MessageValidity1765410000000 implements MigrationInterface {
  name = 'MessageValidity1765410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'scheduled',
      new TableColumn({ name: 'validity', type: 'integer', isNullable: true }),
    );
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({ name: 'expires_at', type: 'datetime', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('outbox', 'expires_at');
    await queryRunner.dropColumn('scheduled', 'validity');
  }
}
