import { Column, Entity } from 'typeorm';
import { UserMessage } from '../../database/columns';

export type SendedStatus = 'unknown' | 'delivered' | 'failed';

/** A message handed to (or refused before) a provider: one per recipient of a dispatch. */
@Entity('sended')
export class Sended extends UserMessage {
  @Column({ type: 'varchar', length: 20 })
  destination!: string;

  @Column({ type: 'tinyint' })
  flash!: number;

  @Column({ type: 'tinyint' })
  mms!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: SendedStatus;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  uid!: string | null;

  @Column({ type: 'varchar', length: 100 })
  adapter!: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  tag!: string | null;

  @Column({ type: 'integer', nullable: true })
  originating_scheduled!: number | null;

  @Column({ type: 'integer' })
  segments!: number;

  @Column({ type: 'varchar', length: 8 })
  encoding!: string;

  /** JSON: the refusals of the phones it went through first (docs/dispatch.md#failover). */
  @Column({ type: 'text', nullable: true })
  refusals!: string | null;
}
