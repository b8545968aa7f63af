import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

/** A user's sending quota (docs/dispatch.md#quotas); at most one per user. */
@Entity('quota')
export class Quota extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer' })
  credit!: number;

  @Column({ type: 'integer' })
  additional!: number;

  /** Segments recorded as handed to a provider in the current period. */
  @Column({ type: 'integer' })
  consumed!: number;

  /** Segments of sends claimed and not recorded yet. */
  @Column({ type: 'integer' })
  reserved!: number;

  @DatetimeColumn()
  start_date!: string;

  @DatetimeColumn()
  expiration_date!: string;

  /** An ISO 8601 duration: the length of each period. */
  @Column({ type: 'varchar', length: 64 })
  renew_interval!: string;

  @Column({ type: 'tinyint' })
  auto_renew!: number;

  @Column({ type: 'tinyint' })
  report_unused!: number;

  @Column({ type: 'tinyint' })
  report_unused_additional!: number;

  /** Whether the period has had its `close` event. */
  @Column({ type: 'tinyint' })
  alerted_close!: number;

  /** Whether the period has had its `reached` event. */
  @Column({ type: 'tinyint' })
  alerted_reached!: number;
}
