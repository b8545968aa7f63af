import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { foreignKey, idColumn } from './table-parts';

/*
 * Idempotency keys of get_send_sms and post_scheduled (docs/idempotency.md): per user and key,
 * the fingerprint of the request that used it and the answer it got (HTTP status and envelope),
 * kept until `expires_at`. Written in the transaction that writes the scheduled message, so the
 * unique `(id_user, idem_key)` index is what makes concurrent requests with one key create one
 * message, on both engines; it also serves the lookup of a replay. `expires_at`: the purge of
 * expired keys. The key is compared byte for byte: a binary collation on MySQL (SQLite compares
 * text that way by default). No foreign key to `scheduled`: the dispatch deletes a message once
 * it is queued, and its key must still replay.
 */
export class IdempotencyKeys1765400000000 implements MigrationInterface {
  name = 'IdempotencyKeys1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'idempotency_key',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          {
            name: 'idem_key',
            type: 'varchar',
            length: '255',
            ...(mysql ? { charset: 'ascii', collation: 'ascii_bin' } : {}),
          },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'status', type: 'integer' },
          { name: 'answer', type: 'text', charset: 'utf8mb4' },
          { name: 'created_at', type: 'datetime' },
          { name: 'expires_at', type: 'datetime' },
        ],
        foreignKeys: [foreignKey('id_user', 'user')],
        indices: [
          {
            name: 'ux_idempotency_key_id_user_idem_key',
            columnNames: ['id_user', 'idem_key'],
            isUnique: true,
          },
          { name: 'ix_idempotency_key_expires_at', columnNames: ['expires_at'] },
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_key');
  }
}
