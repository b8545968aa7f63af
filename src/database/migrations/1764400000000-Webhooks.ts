import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * The users' webhooks (docs/api.md#post_webhook). `secret` is kept as given, since signing needs
 * it. `(id_user, id)`: a user's webhooks are listed and counted by it.
 */
export class Webhooks1764400000000 implements MigrationInterface {
  name = 'Webhooks1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhook',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'url', type: 'varchar', length: '2048', charset: 'utf8mb4' },
          { name: 'type', type: 'varchar', length: '32' },
          { name: 'format', type: 'varchar', length: '16', default: "'raspisms'" },
          { name: 'secret', type: 'varchar', length: '128' },
          { name: 'enabled', type: 'tinyint', default: 1 },
          ...timestampColumns(),
        ],
        foreignKeys: [foreignKey('id_user', 'user')],
        indices: [{ name: 'ix_webhook_id_user_id', columnNames: ['id_user', 'id'] }],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook');
  }
}
