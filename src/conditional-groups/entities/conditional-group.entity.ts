import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

/** Contacts matching an ExpressionLanguage condition, evaluated at send time. */
@Entity('conditional_group')
export class ConditionalGroup extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** The name as uniqueness compares it (nameKey): unique per user. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name_key!: string | null;

  @Column({ type: 'text', nullable: true })
  condition!: string | null;
}
