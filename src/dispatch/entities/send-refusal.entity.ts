import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn } from '../../database/columns';

/**
 * A phone's refusal of a recipient that then went through another phone
 * (docs/dispatch.md#failover): it counts in the phone's reliability figures as a failed send.
 */
@Entity('send_refusal')
export class SendRefusal {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'integer' })
  id_phone!: number;

  @DatetimeColumn()
  at!: string;
}
