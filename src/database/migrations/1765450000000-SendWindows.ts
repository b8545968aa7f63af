import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/*
 * Send windows (docs/dispatch.md#send-windows).
 *
 * - `scheduled.send_window`: the window the message was given, as given (`none`, a window), or
 *   null for its user's setting `send_window`; listed as `window` (a word MySQL reserves).
 * - `scheduled.effective_window` and `outbox.effective_window`: the window that applies, with
 *   its zone (`Europe/Paris mon-fri 08:00-20:00`), fixed when the message is scheduled or
 *   updated; null: any time. Copied to each recipient at expansion, so that the claim reads it
 *   from the row it holds when a campaign outlasts its window.
 * - `scheduled.send_after`: when the message may go out, its `at` or its window's next opening
 *   from it; the expansion takes due messages by it, so `(priority, send_after)` replaces
 *   `(priority, at)`. Existing messages get their `at`.
 */
export class SendWindows1765450000000 implements MigrationInterface {
  name = 'SendWindows1765450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('scheduled', [
      new TableColumn({ name: 'send_window', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({
        name: 'effective_window',
        type: 'varchar',
        length: '320',
        isNullable: true,
      }),
      new TableColumn({ name: 'send_after', type: 'datetime', isNullable: true }),
    ]);
    await queryRunner.query('UPDATE scheduled SET send_after = at');
    await queryRunner.changeColumn(
      'scheduled',
      'send_after',
      new TableColumn({ name: 'send_after', type: 'datetime', isNullable: false }),
    );
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({
        name: 'effective_window',
        type: 'varchar',
        length: '320',
        isNullable: true,
      }),
    );
    await queryRunner.createIndex(
      'scheduled',
      new TableIndex({
        name: 'ix_scheduled_priority_send_after',
        columnNames: ['priority', 'send_after'],
      }),
    );
    await queryRunner.dropIndex('scheduled', 'ix_scheduled_priority_at');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'scheduled',
      new TableIndex({ name: 'ix_scheduled_priority_at', columnNames: ['priority', 'at'] }),
    );
    await queryRunner.dropIndex('scheduled', 'ix_scheduled_priority_send_after');
    await queryRunner.dropColumn('outbox', 'effective_window');
    await queryRunner.dropColumns('scheduled', ['send_after', 'effective_window', 'send_window']);
  }
}
