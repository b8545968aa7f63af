import { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * A large message is expanded into the outbox in bounded chunks, one transaction each, so that
 * neither the API nor the sender waits behind it. Its row keeps where the expansion stands:
 * the recipients up to (`expansion_phase`, `expansion_link`, `expansion_after`) are queued, the
 * others not yet (see ExpansionService). Null while nothing is queued. Added with plain ALTER
 * TABLE: rebuilding `scheduled`, as TypeORM does to add a column on SQLite, would go through
 * the foreign keys of every table that points at it.
 */
export class ScheduledExpansionCursor1764200000000 implements MigrationInterface {
  name = 'ScheduledExpansionCursor1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE scheduled ADD COLUMN expansion_phase varchar(16) NULL');
    await queryRunner.query('ALTER TABLE scheduled ADD COLUMN expansion_link integer NULL');
    await queryRunner.query('ALTER TABLE scheduled ADD COLUMN expansion_after integer NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A message partly queued would be queued again from its first recipient: those already
    // queued are dropped as duplicates (one outbox row per destination), those already sent
    // would be sent twice. Their remaining recipients are dropped instead.
    await queryRunner.query('DELETE FROM scheduled WHERE expansion_phase IS NOT NULL');
    await queryRunner.query('ALTER TABLE scheduled DROP COLUMN expansion_after');
    await queryRunner.query('ALTER TABLE scheduled DROP COLUMN expansion_link');
    await queryRunner.query('ALTER TABLE scheduled DROP COLUMN expansion_phase');
  }
}
