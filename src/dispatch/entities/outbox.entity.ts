import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

/**
 * `unrendered`: its text is a template not rendered yet; `queued`: ready to send; `rejected`:
 * cannot be sent at all (`error` says why), recorded as a failed entry; `sending`: claimed.
 */
export type OutboxState = 'unrendered' | 'queued' | 'rejected' | 'sending';

/** One recipient of a dispatched message, waiting for (or in) its send. */
@Entity('outbox')
export class Outbox extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer' })
  originating_scheduled!: number;

  @Column({ type: 'integer', nullable: true })
  id_phone!: number | null;

  @Column({ type: 'integer', nullable: true })
  id_phone_group!: number | null;

  /** The phone a claim chose; its sends in flight count against that phone's limits. */
  @Column({ type: 'integer', nullable: true })
  via_phone!: number | null;

  /** The sending slot (epoch ms) the row was given on `via_phone`, a paced phone. */
  @Column({ type: 'bigint', nullable: true })
  pace_slot!: string | null;

  @Column({ type: 'varchar', length: 20 })
  destination!: string;

  @Column({ type: 'varchar', length: 1000 })
  text!: string;

  @Column({ type: 'tinyint' })
  flash!: number;

  @Column({ type: 'tinyint' })
  mms!: number;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  tag!: string | null;

  /** JSON list of media ids, copied from the scheduled message (whose links go with it). */
  @Column({ type: 'text', nullable: true })
  media_ids!: string | null;

  @Column({ type: 'varchar', length: 16 })
  state!: OutboxState;

  /** Its message's priority: 1 (high) is claimed before every 0 (normal) row waiting. */
  @Column({ type: 'tinyint', default: 0 })
  priority!: number;

  @Column({ type: 'integer' })
  attempts!: number;

  @DatetimeColumn()
  next_attempt_at!: string;

  /** UTC: when its message's validity ends (never handed to a provider after); null: never. */
  @DatetimeColumn({ nullable: true })
  expires_at!: string | null;

  /** Its message's send window with its zone (`Europe/Paris 08:00-20:00`); null: any time. */
  @Column({ type: 'varchar', length: 320, nullable: true })
  effective_window!: string | null;

  /** JSON: the refusals of the phones it went through first (docs/dispatch.md#failover). */
  @Column({ type: 'text', nullable: true })
  refusals!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  claimed_by!: string | null;

  @DatetimeColumn({ nullable: true })
  claimed_at!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** What an `unrendered` row's render needs (JSON): the recipient's data and metas, GSM or not. */
  @Column({ type: 'text', nullable: true })
  render_input!: string | null;
}
