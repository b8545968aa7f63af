import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

export type ReceivedStatus = 'unread' | 'read';

@Entity('received')
export class Received extends Timestamped {
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

  @Column({ type: 'varchar', length: 20 })
  origin!: string;

  @Column({ type: 'tinyint' })
  command!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: ReceivedStatus;

  @Column({ type: 'tinyint' })
  mms!: number;
}
