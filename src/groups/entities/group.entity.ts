import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../database/columns';

/** The API's `group` entry: a named set of contacts. */
@Entity('contact_group')
export class Group extends Timestamped {
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

@Entity('group_contact')
export class GroupContact extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_group!: number;

  @Column({ type: 'integer' })
  id_contact!: number;
}
