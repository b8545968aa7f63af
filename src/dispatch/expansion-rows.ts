import type { RenderInput } from '../text/text.worker';
import { TextOutcome } from '../text/recipient-text';
import { DueScheduled, NewOutboxRow } from './expansion.repository';
import { Recipient } from './expansion-cursor';

/** A due message and what its rows share, read once per transaction. */
export interface ExpandingMessage {
  scheduled: DueScheduled;
  /** Whether the STOP list applies to it. */
  stop: boolean;
  gsm: boolean;
  /** Its text as every recipient gets it; null when it is rendered per recipient. */
  plain: TextOutcome | null;
  base: Omit<NewOutboxRow, 'destination' | 'state' | 'error' | 'render_input'>;
}

/**
 * A recipient's row, written out field by field: spreading `base` and adding fields cost several
 * microseconds and kilobytes of garbage per row (see `outboxRow` in dispatch-rows.ts).
 */
function outboxRowOf(
  base: ExpandingMessage['base'],
  destination: string,
  text: string,
  state: NewOutboxRow['state'],
  error: string | null,
  renderInput: string | null,
): NewOutboxRow {
  return {
    id_user: base.id_user,
    originating_scheduled: base.originating_scheduled,
    id_phone: base.id_phone,
    id_phone_group: base.id_phone_group,
    destination,
    text,
    flash: base.flash,
    mms: base.mms,
    tag: base.tag,
    expires_at: base.expires_at,
    priority: base.priority,
    effective_window: base.effective_window,
    media_ids: base.media_ids,
    state,
    error,
    render_input: renderInput,
  };
}

/** A row to queue, and whether the STOP list applies to it. */
export interface Pending {
  row: NewOutboxRow;
  stop: boolean;
}

/** The outbox rows of `recipients` of the message. */
export function pendingRows(
  message: ExpandingMessage,
  recipients: readonly Recipient[],
): Pending[] {
  const { base, plain, gsm, stop } = message;
  return recipients.map((recipient): Pending => {
    const destination = recipient.number;
    if (plain === null) {
      const input: RenderInput = { data: recipient.data, metas: recipient.metas, gsm };
      return {
        stop,
        row: outboxRowOf(base, destination, base.text, 'unrendered', null, JSON.stringify(input)),
      };
    }
    return {
      stop,
      row:
        'text' in plain
          ? outboxRowOf(base, destination, plain.text, 'queued', null, null)
          : outboxRowOf(base, destination, base.text, 'rejected', plain.reason, null),
    };
  });
}
