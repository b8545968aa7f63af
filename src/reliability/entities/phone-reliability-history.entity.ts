import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';
import { ReliabilityType } from '../../users/settings';

/**
 * One reliability alert of a phone (docs/dispatch.md#phone-reliability): its `created_at`, the
 * time of the check that raised it, starts the phone's next window for that type.
 */
@Entity('phone_reliability_history')
export class PhoneReliabilityHistory extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer' })
  id_phone!: number;

  @Column({ type: 'varchar', length: 16 })
  type!: ReliabilityType;

  /** The window's sent entries, and those of the type; null in alerts older than these columns. */
  @Column({ type: 'integer', nullable: true })
  total!: number | null;

  @Column({ type: 'integer', nullable: true })
  unreliable!: number | null;
}
