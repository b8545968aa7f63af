import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/*
 * Templates are rendered after expansion, outside its transaction: until then a queued recipient
 * keeps what its render needs (its data, its metas, whether to transliterate to GSM) in
 * `render_input`, and its `text` holds the template. Rows waiting for their render are found
 * through the existing (state, next_attempt_at) index.
 */
export class OutboxRenderInput1764100000000 implements MigrationInterface {
  name = 'OutboxRenderInput1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'outbox',
      new TableColumn({ name: 'render_input', type: 'text', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Recipients still waiting for their render would go out as their raw template.
    await queryRunner.query(
      "UPDATE outbox SET state = 'rejected', error = ? WHERE state = 'unrendered'",
      ['The message was being prepared when the database was downgraded.'],
    );
    await queryRunner.dropColumn('outbox', 'render_input');
  }
}
