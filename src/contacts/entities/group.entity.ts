import { Column, Entity } from 'typeorm';
import { IdColumn, Timestamped } from '../../common/database/columns';

/** The API's `group` entry: a named set of contacts. */
@Entity('contact_group')
export class Group extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @Column({ type: 'varchar', length: 100 })
  name!: string;
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
