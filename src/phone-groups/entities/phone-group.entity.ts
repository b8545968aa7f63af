import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('phone_group')
export class PhoneGroup extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The name as uniqueness compares it (nameKey): unique per user. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name_key!: string | null;
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
