/**
 * A message's priority (docs/dispatch.md#priority), as the API takes and lists it, and as
 * `scheduled.priority` and `outbox.priority` store it: the claim reads high rows first by the
 * stored number, so high is the greater.
 */
export type MessagePriority = 'high' | 'normal';

export const STORED_PRIORITY: Readonly<Record<MessagePriority, number>> = { high: 1, normal: 0 };

/** The priority a stored number means. */
export function messagePriority(stored: number): MessagePriority {
  return stored === STORED_PRIORITY.high ? 'high' : 'normal';
}
