import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

/** A signed-in console session; its token is stored only as a SHA-256 hash. */
@Entity('session')
export class Session extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 64 })
  token_hash!: string;

  @Column({ type: 'varchar', length: 64 })
  csrf_token!: string;

  @DatetimeColumn()
  last_used_at!: string;
}
