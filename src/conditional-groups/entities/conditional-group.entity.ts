import { Column, Entity } from 'typeorm';
import { NamedUserEntry } from '../../database/columns';

/** Contacts matching an ExpressionLanguage condition, evaluated at send time. */
@Entity('conditional_group')
export class ConditionalGroup extends NamedUserEntry {
  @Column({ type: 'text', nullable: true })
  condition!: string | null;
}
