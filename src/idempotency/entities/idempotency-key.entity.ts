import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn } from '../../database/columns';

/**
 * An idempotency key of get_send_sms or post_scheduled, with the request that used it and the
 * answer kept for it (docs/idempotency.md).
 */
@Entity('idempotency_key')
export class IdempotencyKey {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 255 })
  idem_key!: string;

  /** SHA-256, hex, of the operation and its parameters as parsed (idempotency.fingerprint.ts). */
  @Column({ type: 'varchar', length: 64 })
  fingerprint!: string;

  /** The HTTP status of the kept answer. */
  @Column({ type: 'integer' })
  status!: number;

  /** The kept answer's envelope, as JSON. */
  @Column({ type: 'text' })
  answer!: string;

  @DatetimeColumn()
  created_at!: string;

  @DatetimeColumn()
  expires_at!: string;
}
