import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/*
 * Message priority (docs/dispatch.md#priority): `scheduled.priority`, copied to each recipient's
 * `outbox.priority` at expansion; 1 is high, 0 normal.
 *
 * - `scheduled (priority, at)`: the expansion takes due high-priority messages first, a range of
 *   `at` per priority, so that one is not queued behind a large campaign's recipients.
 * - `outbox (state, priority, next_attempt_at)` replaces `(state, next_attempt_at)`: the claim and
 *   the render read the ready rows of each priority in turn, high first, each a range of the
 *   index in queue order, as before; the count by state still reads its prefix.
 * - `outbox (via_phone, state, priority, pace_slot)` replaces `(via_phone, state)`: a high-priority
 *   row takes the slot of a paced phone's earliest booked normal row, found at the start of that
 *   range; the in-flight count of a phone's limit check still reads its prefix.
 */
export class MessagePriority1765440000000 implements MigrationInterface {
  name = 'MessagePriority1765440000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const priority = () =>
      new TableColumn({ name: 'priority', type: 'tinyint', isNullable: false, default: 0 });
    await queryRunner.addColumn('scheduled', priority());
    await queryRunner.addColumn('outbox', priority());
    await queryRunner.createIndex(
      'scheduled',
      new TableIndex({ name: 'ix_scheduled_priority_at', columnNames: ['priority', 'at'] }),
    );
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({
        name: 'ix_outbox_state_priority_next_attempt_at',
        columnNames: ['state', 'priority', 'next_attempt_at'],
      }),
    );
    await queryRunner.dropIndex('outbox', 'ix_outbox_state_next_attempt_at');
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({
        name: 'ix_outbox_via_phone_state_priority_pace_slot',
        columnNames: ['via_phone', 'state', 'priority', 'pace_slot'],
      }),
    );
    await queryRunner.dropIndex('outbox', 'ix_outbox_via_phone_state');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({ name: 'ix_outbox_via_phone_state', columnNames: ['via_phone', 'state'] }),
    );
    await queryRunner.dropIndex('outbox', 'ix_outbox_via_phone_state_priority_pace_slot');
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({
        name: 'ix_outbox_state_next_attempt_at',
        columnNames: ['state', 'next_attempt_at'],
      }),
    );
    await queryRunner.dropIndex('outbox', 'ix_outbox_state_priority_next_attempt_at');
    await queryRunner.dropIndex('scheduled', 'ix_scheduled_priority_at');
    await queryRunner.dropColumn('outbox', 'priority');
    await queryRunner.dropColumn('scheduled', 'priority');
  }
}
