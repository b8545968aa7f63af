import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('setting')
export class Setting extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 50 })
  name!: string;

  @Column({ type: 'varchar', length: 1000 })
  value!: string;
}
