import { Column, Entity } from 'typeorm';
import { IdColumn, NamedUserEntry, Timestamped } from '../../database/columns';

@Entity('phone_group')
export class PhoneGroup extends NamedUserEntry {}

@Entity('phone_group_phone')
export class PhoneGroupPhone extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_phone_group!: number;

  @Column({ type: 'integer' })
  id_phone!: number;
}
