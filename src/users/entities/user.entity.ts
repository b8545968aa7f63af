import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

export type UserStatus = 'active' | 'suspended';
export const USER_STATUSES: readonly UserStatus[] = ['active', 'suspended'];

@Entity('user')
export class User extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'varchar', length: 150 })
  email!: string;

  @Column({ type: 'varchar', length: 64 })
  api_key_hash!: string;

  @Column({ type: 'tinyint' })
  admin!: number;

  @Column({ type: 'varchar', length: 16 })
  status!: UserStatus;

  /**
   * The key-derivation function's output with its parameters; null: no password set. Read only
   * where a password is checked (`passwordHashOf`), and written apart from the user's other
   * columns, so that it is never loaded, listed or inserted along with them.
   */
  @Column({ type: 'varchar', length: 255, nullable: true, select: false, insert: false })
  password_hash!: string | null;
}
