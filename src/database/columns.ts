import { Column, ColumnOptions, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A DATETIME column seen by the code as a UTC `YYYY-MM-DD HH:MM:SS` string. The ORM is told it is
 * text so that it never converts it: SQLite would otherwise store milliseconds and MySQL would
 * shift it by the connection zone, and the two engines would no longer compare values alike.
 */
export function DatetimeColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'varchar', length: 19, ...options });
}

export function IdColumn(): PropertyDecorator {
  return PrimaryGeneratedColumn({ type: 'integer' });
}

/** `created_at` / `updated_at`, present on every table. */
export abstract class Timestamped {
  @DatetimeColumn()
  created_at!: string;

  @DatetimeColumn({ nullable: true })
  updated_at!: string | null;
}

/**
 * What a user's named entries have in common (contacts, groups, phone groups, conditional
 * groups): their owner, their name, and the name as uniqueness compares it (nameKey), unique per
 * user.
 */
export abstract class NamedUserEntry extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  name_key!: string | null;
}

/** What a sent and a received message have in common: whose, through which phone, when, what. */
export abstract class UserMessage extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer', nullable: true })
  id_phone!: number | null;

  @DatetimeColumn()
  at!: string;

  @Column({ type: 'varchar', length: 1000 })
  text!: string;
}
