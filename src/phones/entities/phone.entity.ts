import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../common/database/columns';

export type PhoneStatus = 'available' | 'unavailable' | 'no_credit' | 'limit_reached' | 'disabled';

@Entity('phone')
export class Phone extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 150 })
  name!: string;

  /** The adapter id (`test`, `twilio`…), never its RaspiSMS alias. */
  @Column({ type: 'varchar', length: 100 })
  adapter!: string;

  /** JSON object string of the adapter's data fields. */
  @Column({ type: 'text', nullable: true })
  adapter_data!: string | null;

  @Column({ type: 'integer' })
  priority!: number;

  @Column({ type: 'varchar', length: 20 })
  status!: PhoneStatus;
}
