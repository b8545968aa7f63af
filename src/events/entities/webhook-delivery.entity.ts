import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

/**
 * One event to deliver to one webhook, and how its delivery went (docs/api.md#webhook-deliveries):
 * written in the transaction of what caused the event, so that none is lost, and kept as the
 * webhook's delivery log.
 */
@Entity('webhook_delivery')
export class WebhookDelivery extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer' })
  id_webhook!: number;

  /** `<unix seconds>-<32 hex>`: the same on every attempt, for receivers to deduplicate. */
  @Column({ type: 'varchar', length: 64 })
  event_id!: string;

  @Column({ type: 'varchar', length: 32 })
  event_type!: string;

  /** When the event happened (UTC). */
  @DatetimeColumn()
  event_at!: string;

  /** The event's payload, JSON. */
  @Column({ type: 'text' })
  payload!: string;

  /** `pending`, `delivered` or `failed`. */
  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ type: 'integer', nullable: true })
  last_http_status!: number | null;

  @Column({ type: 'text', nullable: true })
  last_error!: string | null;

  /** An excerpt of the body the endpoint answered at the latest attempt, whatever its status. */
  @Column({ type: 'text', nullable: true })
  last_answer!: string | null;

  @DatetimeColumn({ nullable: true })
  next_attempt_at!: string | null;

  @DatetimeColumn({ nullable: true })
  delivered_at!: string | null;
}
