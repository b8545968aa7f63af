import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { foreignKey, idColumn, timestampColumns } from './table-parts';

/*
 * Passwords and console sessions (docs/api.md#sessions-the-console). `user.password_hash` holds the
 * key-derivation function's output with its parameters; null: the user cannot sign in.
 * `session`: looked up by `token_hash` (unique) at every session-authenticated request; purged by
 * `last_used_at` (idle end) and `created_at` (absolute end); ended per user by `id_user`.
 * `login_attempt`: failed sign-ins, counted per e-mail and per client address over a recent
 * window, hence `(email, created_at)` and `(address, created_at)`; purged by `created_at`.
 */
export class Sessions1765000000000 implements MigrationInterface {
  name = 'Sessions1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'user',
      new TableColumn({ name: 'password_hash', type: 'varchar', length: '255', isNullable: true }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'session',
        columns: [
          idColumn(),
          { name: 'id_user', type: 'integer' },
          { name: 'token_hash', type: 'varchar', length: '64' },
          { name: 'csrf_token', type: 'varchar', length: '64' },
          { name: 'last_used_at', type: 'datetime' },
          ...timestampColumns(),
        ],
        foreignKeys: [foreignKey('id_user', 'user')],
        indices: [
          { name: 'ux_session_token_hash', columnNames: ['token_hash'], isUnique: true },
          { name: 'ix_session_id_user', columnNames: ['id_user'] },
          { name: 'ix_session_last_used_at', columnNames: ['last_used_at'] },
          { name: 'ix_session_created_at', columnNames: ['created_at'] },
        ],
        engine: 'InnoDB',
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'login_attempt',
        columns: [
          idColumn(),
          { name: 'email', type: 'varchar', length: '150', charset: 'utf8mb4' },
          { name: 'address', type: 'varchar', length: '64' },
          ...timestampColumns(),
        ],
        indices: [
          { name: 'ix_login_attempt_email_created_at', columnNames: ['email', 'created_at'] },
          { name: 'ix_login_attempt_address_created_at', columnNames: ['address', 'created_at'] },
          { name: 'ix_login_attempt_created_at', columnNames: ['created_at'] },
        ],
        engine: 'InnoDB',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('login_attempt');
    await queryRunner.dropTable('session');
    if (queryRunner.connection.options.type === 'better-sqlite3') {
      // TypeORM drops a SQLite column by copying the table and dropping the old one, which with
      // foreign keys on would cascade to every row referencing a user (phones, messages…).
      // SQLite drops a plain column in place.
      await queryRunner.query('ALTER TABLE "user" DROP COLUMN "password_hash"');
    } else {
      await queryRunner.dropColumn('user', 'password_hash');
    }
  }
}
