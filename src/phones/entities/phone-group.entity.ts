import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../common/database/columns';

@Entity('phone_group')
export class PhoneGroup extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;
}

@Entity('phone_group_phone')
export class PhoneGroupPhone extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_phone_group!: number;

  @Column({ type: 'integer' })
  id_phone!: number;
}
