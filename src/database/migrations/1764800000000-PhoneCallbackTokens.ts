import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/*
 * Each phone's callback token (docs/adapters.md#callback-urls): the receipt and inbound URLs
 * smsgw builds for a phone carry it instead of the user's API key. Phones that exist get one now;
 * the unique index finds a phone by its token.
 */
export class PhoneCallbackTokens1764800000000 implements MigrationInterface {
  name = 'PhoneCallbackTokens1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'phone',
      new TableColumn({ name: 'callback_token', type: 'varchar', length: '64', isNullable: true }),
    );
    const phones = (await queryRunner.query('SELECT id FROM phone')) as Array<{ id: number }>;
    for (const { id } of phones) {
      // As generateCallbackToken makes them; a migration keeps its own copy of what it writes.
      await queryRunner.query('UPDATE phone SET callback_token = ? WHERE id = ?', [
        randomBytes(24).toString('base64url'),
        id,
      ]);
    }
    await queryRunner.createIndex(
      'phone',
      new TableIndex({
        name: 'ux_phone_callback_token',
        columnNames: ['callback_token'],
        isUnique: true,
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('phone', 'ux_phone_callback_token');
    await queryRunner.dropColumn('phone', 'callback_token');
  }
}
