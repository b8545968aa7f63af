import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/*
 * Hidden scheduled messages (src/messages/hidden-messages.ts).
 *
 * - `scheduled.hidden`: 1 while a message with many numbers is being written in several
 *   transactions, 0 once it is whole; the listings, counts, updates and deletions leave hidden
 *   messages out. Existing messages are whole.
 * - `(hidden, created_at)`: the dispatch worker finds the hidden messages a stopped process left
 *   behind without reading every message.
 */
export class HiddenScheduled1765470000000 implements MigrationInterface {
  name = 'HiddenScheduled1765470000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'scheduled',
      new TableColumn({ name: 'hidden', type: 'tinyint', default: 0, isNullable: false }),
    );
    await queryRunner.createIndex(
      'scheduled',
      new TableIndex({
        name: 'ix_scheduled_hidden_created_at',
        columnNames: ['hidden', 'created_at'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('scheduled', 'ix_scheduled_hidden_created_at');
    await queryRunner.dropColumn('scheduled', 'hidden');
  }
}
