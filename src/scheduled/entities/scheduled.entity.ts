import { Column, Entity } from 'typeorm';
import { DatetimeColumn, IdColumn, Timestamped } from '../../database/columns';

@Entity('scheduled')
export class Scheduled extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_user!: number;

  @DatetimeColumn()
  at!: string;

  @Column({ type: 'varchar', length: 1000 })
  text!: string;

  @Column({ type: 'tinyint' })
  flash!: number;

  @Column({ type: 'integer', nullable: true })
  id_phone!: number | null;

  @Column({ type: 'integer', nullable: true })
  id_phone_group!: number | null;

  @Column({ type: 'tinyint' })
  mms!: number;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  tag!: string | null;

  /** Minutes after `at` within which it may still be handed to a provider; null: no limit. */
  @Column({ type: 'integer', nullable: true })
  validity!: number | null;
  /** 1: high, its sends go before every normal one waiting (docs/dispatch.md#priority); 0: normal. */
  @Column({ type: 'tinyint', default: 0 })
  priority!: number;

  /** The window it was given: `none`, a window, or null for its user's `send_window`. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  send_window!: string | null;

  /** The window that applies, with its zone (`Europe/Paris 08:00-20:00`); null: any time. */
  @Column({ type: 'varchar', length: 320, nullable: true })
  effective_window!: string | null;

  /** UTC: when it may go out, its `at` or its window's next opening from it. */
  @DatetimeColumn()
  send_after!: string;

  /** 1 while its numbers are being written, in several transactions (src/messages/hidden-messages.ts). */
  @Column({ type: 'tinyint', default: 0 })
  hidden!: number;
}

@Entity('scheduled_number')
export class ScheduledNumber extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_scheduled!: number;

  @Column({ type: 'varchar', length: 20 })
  number!: string;

  /** JSON string of the number's template data, `[]` when none. */
  @Column({ type: 'text', nullable: true })
  data!: string | null;
}

@Entity('scheduled_contact')
export class ScheduledContact extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_scheduled!: number;

  @Column({ type: 'integer' })
  id_contact!: number;
}

@Entity('scheduled_group')
export class ScheduledGroup extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_scheduled!: number;

  @Column({ type: 'integer' })
  id_group!: number;
}

@Entity('scheduled_conditional_group')
export class ScheduledConditionalGroup extends Timestamped {
  @IdColumn()
  id!: number;

  @Column({ type: 'integer' })
  id_scheduled!: number;

  @Column({ type: 'integer' })
  id_conditional_group!: number;
}

/** A scheduled message's table and those of its recipients, for the modules that read them. */
export const SCHEDULED_ENTITIES = [
  Scheduled,
  ScheduledNumber,
  ScheduledContact,
  ScheduledGroup,
  ScheduledConditionalGroup,
];
