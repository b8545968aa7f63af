import { MigrationInterface, QueryRunner, Table } from 'typeorm';

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
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'id_user', type: 'integer' },
          { name: 'id_phone', type: 'integer' },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'datetime', default: 'CURRENT_TIMESTAMP' },
          { name: 'updated_at', type: 'datetime', isNullable: true },
        ],
        foreignKeys: [
          {
            columnNames: ['id_user'],
            referencedTableName: 'user',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            columnNames: ['id_phone'],
            referencedTableName: 'phone',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
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
