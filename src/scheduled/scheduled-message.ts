import { InsertTree } from '../database/driver/group-commit';
import { MessagePriority } from './entities/message-priority';

/** The entries a scheduled message may name, by parameter. */
export type Recipients = 'contacts' | 'groups' | 'conditional_groups';

/** A recipient number as stored: E.164 and a JSON string of template data. */
export interface RecipientNumber {
  number: string;
  data: string;
}

/** A scheduled message as stored, what an update starts from. */
export interface StoredMessage {
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
  text: string;
  flash: boolean;
  mms: boolean;
  tag: string | null;
  priority: MessagePriority;
  phoneId: number | null;
  phoneGroupId: number | null;
  /** Minutes after `at` within which it may still be sent; null: no limit. */
  validity: number | null;
  /** `none`, a window, or null for the user's `send_window` (docs/dispatch.md#send-windows). */
  window: string | null;
  numbers: RecipientNumber[];
  contactIds: number[];
  groupIds: number[];
  conditionalGroupIds: number[];
}

/** Everything one scheduled message is made of, checked and normalised by the service. */
export interface NewScheduled extends StoredMessage {
  userId: number;
  /** The window that applies, with its zone (`Europe/Paris 08:00-20:00`); null: any time. */
  effectiveWindow: string | null;
  /** UTC: `at`, or the window's next opening from it. */
  sendAfter: string;
  /** Media files already in the media folder, relative to it. */
  mediaPaths: string[];
  /** The idempotency key's row, written with the message (docs/idempotency.md). */
  keep?: (scheduledId: number) => InsertTree;
}

/** What an update makes of a message, and which of its lists were sent (and are replaced). */
export interface MessageChange {
  message: Omit<NewScheduled, 'mediaPaths' | 'userId'>;
  replaces: Record<'numbers' | Recipients, boolean>;
}
