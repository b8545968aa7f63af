import { Column, Entity } from 'typeorm';
import { NamedUserEntry } from '../../database/columns';

@Entity('contact')
export class Contact extends NamedUserEntry {
  /** E.164. */
  @Column({ type: 'varchar', length: 20 })
  number!: string;

  /** JSON object string of the contact's template data. */
  @Column({ type: 'text', nullable: true })
  data!: string | null;
}
