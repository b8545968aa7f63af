import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('phone_limit')
export class PhoneLimit extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_phone!: number;

  @Column({ type: 'integer' })
  volume!: number;

  /** A relative date (`today`, `-24 hours`…), evaluated against now at every check. */
  @Column({ type: 'varchar', length: 254 })
  startpoint!: string;
}
