import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { WebhookDelivery } from './entities/webhook-delivery.entity';

/** An event as it goes to a webhook: the same id and time on every attempt. */
export interface WebhookEvent {
  /** `<unix seconds>-<32 hex>`, as RaspiSMS's `webhook_random_id`: receivers deduplicate by it. */
  id: string;
  type: string;
  /** When it happened. */
  at: Date;
  payload: Record<string, unknown>;
}

/** A new event's id, made when the event is recorded. */
export function newEventId(at: Date): string {
  return `${Math.floor(at.getTime() / 1000)}-${randomBytes(16).toString('hex')}`;
}

/**
 * Queues `event` for the user's webhook `webhookId`, due at once, in the caller's transaction
 * (`manager`): the event is stored with what caused it, or not at all. The delivery's id.
 */
export async function queueDelivery(
  manager: EntityManager,
  userId: number,
  webhookId: number,
  event: WebhookEvent,
): Promise<number> {
  const now = nowUtc();
  const result = await manager.insert(WebhookDelivery, {
    id_user: userId,
    id_webhook: webhookId,
    event_id: event.id,
    event_type: event.type,
    event_at: event.at.toISOString().slice(0, 19).replace('T', ' '),
    payload: JSON.stringify(event.payload),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  });
  return Number((result.identifiers[0] as { id: number }).id);
}
