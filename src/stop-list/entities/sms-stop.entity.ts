import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

/** A number that answered STOP: the user's campaigns skip it (docs/dispatch.md#expansion). */
@Entity('smsstop')
export class SmsStop extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 20 })
  number!: string;
}
