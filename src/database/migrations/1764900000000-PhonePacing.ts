import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/*
 * Per-phone pacing (docs/dispatch.md#pacing). `phone.rate` is the user's messages per second (null:
 * unpaced); `phone.pace_next_ms` the time (epoch milliseconds) of the phone's next free sending
 * slot, moved forward by every claim under the phone's row lock. An outbox row given a slot keeps
 * it in `pace_slot`, with its phone in `via_phone`: still `queued` (booked) when its turn is too
 * far ahead to claim it now, `sending` once claimed. Claims find the booked rows whose turn comes
 * by `(state, pace_slot)`, ahead of the rest of the queue, without reading the rest.
 */
export class PhonePacing1764900000000 implements MigrationInterface {
  name = 'PhonePacing1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('phone', [
      new TableColumn({ name: 'rate', type: 'double', isNullable: true }),
      new TableColumn({ name: 'pace_next_ms', type: 'bigint', isNullable: true }),
    ]);
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({ name: 'pace_slot', type: 'bigint', isNullable: true }),
    );
    await queryRunner.createIndex(
      'outbox',
      new TableIndex({ name: 'ix_outbox_state_pace_slot', columnNames: ['state', 'pace_slot'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('outbox', 'ix_outbox_state_pace_slot');
    await queryRunner.dropColumn('outbox', 'pace_slot');
    await queryRunner.dropColumn('phone', 'pace_next_ms');
    await queryRunner.dropColumn('phone', 'rate');
  }
}
