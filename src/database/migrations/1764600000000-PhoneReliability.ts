import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * The phones' reliability alerts (docs/dispatch.md#phone-reliability): one row per alert, whose
 * `created_at` starts the phone's next window for that type. `(id_phone, type, created_at)`: the
 * check reads each phone's last alert of a type as the top of that index.
 */
export class PhoneReliability1764600000000 implements MigrationInterface {
  name = 'PhoneReliability1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'phone_reliability_history',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'id_phone', type: 'integer' },
          { name: 'type', type: 'varchar', length: '16' },
          ...timestampColumns(),
        ],
        foreignKeys: [foreignKey('id_user', 'user'), foreignKey('id_phone', 'phone')],
        indices: [
          {
            name: 'ix_phone_reliability_history_id_phone_type_created_at',
            columnNames: ['id_phone', 'type', 'created_at'],
          },
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('phone_reliability_history');
  }
}
