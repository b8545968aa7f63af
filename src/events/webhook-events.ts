import { randomBytes } from 'node:crypto';
import { chunks, marks, rowMarks } from '../database/driver/placeholders';
import { select, Sql, write } from '../database/driver/sql';
import { utcString } from '../common/time/datetime';
import { isSettingOn } from '../users/settings';

/** The types a webhook subscribes to; `ping` is only ever sent by post_webhook_test. */
export const WEBHOOK_TYPES = [
  'send_sms',
  'send_sms_status_change',
  'receive_sms',
  'phone_reliability',
  'quota',
] as const;

export type WebhookType = (typeof WEBHOOK_TYPES)[number];
export type EventType = WebhookType | 'ping';

/** How a webhook's requests are written and signed (docs/api.md#webhook-deliveries). */
export const WEBHOOK_FORMATS = ['raspisms', 'standard'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** An event as it goes to a webhook: the same id and time on every attempt. */
export interface WebhookEvent {
  /** `<unix seconds>-<32 hex>`, as RaspiSMS's `webhook_random_id`: receivers deduplicate by it. */
  id: string;
  type: string;
  /** When it happened. */
  at: Date;
  payload: Record<string, unknown>;
}

/** An event of one user, to queue for each of their webhooks of its type. */
export interface NewEvent {
  userId: number;
  type: EventType;
  at: Date;
  /** Made only when a webhook wants the event: most sends and receipts go to none. */
  payload: () => Record<string, unknown>;
}

/** A new event's id, made when the event is recorded. */
export function newEventId(at: Date): string {
  return `${Math.floor(at.getTime() / 1000)}-${randomBytes(16).toString('hex')}`;
}

/** Deliveries per INSERT: 11 values each, well under either engine's limit on parameters. */
const DELIVERIES_PER_INSERT = 500;

/**
 * Queues each event for every enabled webhook of its user and type while the user's `webhook`
 * setting is on, due at once, in the caller's transaction: an event is stored with the change
 * that caused it, or not at all. One id per event, whatever the number of its webhooks. The
 * number of deliveries queued.
 */
export function* queueEvents(events: readonly NewEvent[]): Sql<number> {
  if (events.length === 0) {
    return 0;
  }
  const userIds = [...new Set(events.map((event) => event.userId))];
  const types = [...new Set(events.map((event) => event.type))];
  const hooks = yield* select<{ id: number; id_user: number; type: string }>(
    `SELECT id, id_user, type FROM webhook WHERE enabled = 1 AND id_user IN (${marks(userIds.length)}) ` +
      `AND type IN (${marks(types.length)}) ORDER BY id`,
    [...userIds, ...types],
  );
  if (hooks.length === 0) {
    return 0;
  }
  const switches = yield* select<{ id_user: number; value: string }>(
    `SELECT id_user, value FROM setting WHERE name = 'webhook' AND id_user IN (${marks(userIds.length)})`,
    userIds,
  );
  const off = new Set(
    switches
      .filter((row) => !isSettingOn({ webhook: row.value }, 'webhook'))
      .map((row) => Number(row.id_user)),
  );
  const byKey = new Map<string, number[]>();
  for (const hook of hooks) {
    const key = `${Number(hook.id_user)}:${hook.type}`;
    byKey.set(key, [...(byKey.get(key) ?? []), Number(hook.id)]);
  }
  const rows: unknown[][] = [];
  const now = utcString(new Date());
  for (const event of events) {
    if (off.has(event.userId)) {
      continue;
    }
    const webhookIds = byKey.get(`${event.userId}:${event.type}`) ?? [];
    const id = newEventId(event.at);
    const payload = JSON.stringify(event.payload());
    for (const webhookId of webhookIds) {
      rows.push(deliveryRow(event.userId, webhookId, id, event, payload, now));
    }
  }
  for (const chunk of chunks(rows, DELIVERIES_PER_INSERT)) {
    yield* insertDeliveries(chunk);
  }
  return rows.length;
}

/**
 * Queues `event` for the one webhook `webhookId` of the user, whatever its type and the user's
 * settings (post_webhook_test), in the caller's transaction. The delivery's id.
 */
export function* queueDelivery(
  userId: number,
  webhookId: number,
  event: WebhookEvent,
): Sql<number> {
  const row = deliveryRow(
    userId,
    webhookId,
    event.id,
    event,
    JSON.stringify(event.payload),
    utcString(new Date()),
  );
  return (yield* insertDeliveries([row])).firstId;
}

function deliveryRow(
  userId: number,
  webhookId: number,
  eventId: string,
  event: { type: string; at: Date },
  payload: string,
  now: string,
): unknown[] {
  return [
    userId,
    webhookId,
    eventId,
    event.type,
    utcString(event.at),
    payload,
    'pending',
    0,
    now,
    now,
  ];
}

function insertDeliveries(rows: readonly unknown[][]) {
  return write(
    'INSERT INTO webhook_delivery (id_user, id_webhook, event_id, event_type, event_at, payload, ' +
      `status, attempts, next_attempt_at, created_at) VALUES ${rowMarks(rows.length, 10)}`,
    rows.flat(),
  );
}

/**
 * Fails the webhook's pending deliveries, saying `reason`: a disabled webhook delivers nothing,
 * and its log says why. In the caller's transaction, with the change that disabled it.
 */
export function* failPendingDeliveries(webhookId: number, reason: string): Sql<number> {
  const now = utcString(new Date());
  const { affected } = yield* write(
    "UPDATE webhook_delivery SET status = 'failed', last_error = ?, next_attempt_at = NULL, " +
      "updated_at = ? WHERE id_webhook = ? AND status = 'pending'",
    [reason, now, webhookId],
  );
  return affected;
}
