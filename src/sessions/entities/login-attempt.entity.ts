import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

/** A failed sign-in, counted against its e-mail and its client address for a while. */
@Entity('login_attempt')
export class LoginAttempt extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'varchar', length: 150 })
  email!: string;

  @Column({ type: 'varchar', length: 64 })
  address!: string;
}
