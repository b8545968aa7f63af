import { Column, Entity } from 'typeorm';
import { IdColumn, NamedUserEntry, Timestamped } from '../../database/columns';

/** The API's `group` entry: a named set of contacts. */
@Entity('contact_group')
export class Group extends NamedUserEntry {}

@Entity('group_contact')
export class GroupContact extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_group!: number;

  @Column({ type: 'integer' })
  id_contact!: number;
}
