import { RecipientInput } from '../text/recipient-text';
import { ConditionLink, DueScheduled, NumberRecipient } from './expansion.repository';

/* Where a message's expansion stands, and the rules that move it (see ExpansionService). */

/** The kinds of recipients, in the order they are queued. */
export const PHASES = ['numbers', 'contacts', 'groups', 'conditions'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Where a message's expansion stands: every recipient up to this one is queued. Numbers and the
 * message's own contacts by their row (`after`), group members by group link (`link`) and
 * membership, conditional groups by link and contact id (each link's contacts are tested in id
 * order).
 */
export interface Cursor {
  phase: Phase;
  link: number;
  after: number;
}

/** Where the expansion of a kind of recipients starts. */
export function startOf(phase: Phase): Cursor {
  return { phase, link: 0, after: 0 };
}

export interface Recipient extends RecipientInput {
  number: string;
}

/** Whether the message has recipients of that kind. */
export function hasAny(scheduled: DueScheduled, phase: Phase): boolean {
  return Boolean(Number(scheduled[`has_${phase}`]));
}

/** Where the message's expansion stands: at its start when nothing is queued yet. */
export function cursorOf(scheduled: DueScheduled): Cursor {
  const phase = PHASES.find((candidate) => candidate === scheduled.expansion_phase);
  return phase
    ? {
        phase,
        link: Number(scheduled.expansion_link ?? 0),
        after: Number(scheduled.expansion_after ?? 0),
      }
    : startOf('numbers');
}

/**
 * The conditional group whose matches come next: the first at or after the cursor's link, but
 * one whose condition an earlier link has (its matches are queued already).
 */
export function nextCondition(
  conditions: readonly ConditionLink[],
  cursor: Cursor,
): ConditionLink | null {
  return (
    conditions.find(
      (condition, index) =>
        condition.link_id >= cursor.link &&
        !conditions.slice(0, index).some((earlier) => earlier.expression === condition.expression),
    ) ?? null
  );
}

export function sameCursor(left: Cursor, right: Cursor): boolean {
  return left.phase === right.phase && left.link === right.link && left.after === right.after;
}

export function sameConditions(
  left: readonly ConditionLink[],
  right: readonly ConditionLink[],
): boolean {
  return (
    left.length === right.length &&
    left.every(
      (condition, index) =>
        condition.link_id === right[index].link_id &&
        condition.expression === right[index].expression,
    )
  );
}

export function numberRecipient(row: NumberRecipient): Recipient {
  return { number: row.number, data: row.data, metas: { number: row.number } };
}

/**
 * A page of one kind of recipients: a short page is the kind's last, and the cursor moves on to
 * the next kind; a full one leaves the cursor after its last row.
 */
export function pageOf(
  recipients: Recipient[],
  limit: number,
  following: Cursor,
  after: () => Cursor,
): { recipients: Recipient[]; read: number; next: Cursor } {
  return {
    recipients,
    read: recipients.length,
    next: recipients.length < limit ? following : after(),
  };
}
