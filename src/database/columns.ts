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
