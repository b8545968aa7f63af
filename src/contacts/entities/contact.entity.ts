import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

@Entity('contact')
export class Contact extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The name as uniqueness compares it (nameKey): unique per user. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name_key!: string | null;

  /** E.164. */
  @Column({ type: 'varchar', length: 20 })
  number!: string;

  /** JSON object string of the contact's template data. */
  @Column({ type: 'text', nullable: true })
  data!: string | null;
}
