import { answerOf, api, type paths } from './client';

/** A webhook as get_webhook answers it, its secret included. */
export type Webhook = NonNullable<
  paths['/api/webhook/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

/** One row of a webhook's delivery log: one event, and how its latest attempt went. */
export type Delivery = NonNullable<
  paths['/api/webhook/{id}/deliveries']['get']['responses'][200]['content']['application/json']['response']
>[number];

/** What post_webhook takes. */
export type NewWebhook =
  paths['/api/webhook']['post']['requestBody']['content']['application/json'];

/** What post_update_webhook takes; a field left out keeps its stored value. */
export type WebhookUpdate = NonNullable<
  paths['/api/webhook/{id}']['post']['requestBody']
>['content']['application/json'];

export type WebhookType = Webhook['type'];
export type WebhookFormat = Webhook['format'];

/** The event types a webhook receives, in the order of docs/api.md's table, with their meaning. */
export const WEBHOOK_TYPES: ReadonlyArray<{ value: WebhookType; label: string }> = [
  { value: 'send_sms', label: 'Message sent (send_sms)' },
  { value: 'send_sms_status_change', label: 'Status change (send_sms_status_change)' },
  { value: 'receive_sms', label: 'Message received (receive_sms)' },
  { value: 'phone_reliability', label: 'Phone reliability (phone_reliability)' },
  { value: 'quota', label: 'Quota (quota)' },
];

export const WEBHOOK_FORMATS: ReadonlyArray<{ value: WebhookFormat; label: string }> = [
  { value: 'raspisms', label: 'RaspiSMS form fields (raspisms)' },
  { value: 'standard', label: 'Standard Webhooks JSON (standard)' },
];

/** TanStack Query's keys of webhooks: every key starts with WEBHOOKS_KEY. */
export const WEBHOOKS_KEY = ['webhooks'] as const;

export const webhookKey = (id: number) => [...WEBHOOKS_KEY, id] as const;

export const deliveriesKey = (id: number, page: number) =>
  [...WEBHOOKS_KEY, id, 'deliveries', page] as const;

export function listWebhooks(): Promise<Webhook[]> {
  return answerOf(api.GET('/api/webhook'));
}

export function getWebhook(id: number): Promise<Webhook> {
  return answerOf(api.GET('/api/webhook/{id}', { params: { path: { id } } }));
}

/** post_webhook: the new webhook's id. */
export function createWebhook(webhook: NewWebhook): Promise<number> {
  return answerOf(api.POST('/api/webhook', { body: webhook }));
}

export function updateWebhook(id: number, update: WebhookUpdate): Promise<Webhook> {
  return answerOf(api.POST('/api/webhook/{id}', { params: { path: { id } }, body: update }));
}

export async function deleteWebhook(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/webhook/{id}', { params: { path: { id } } }));
}

/** post_webhook_test: the id of the `ping` delivery it queued. */
export function testWebhook(id: number): Promise<number> {
  return answerOf(api.POST('/api/webhook/{id}/test', { params: { path: { id } } }));
}

/** post_webhook_delivery_retry: the delivery, queued again and due at once. */
export async function retryDelivery(id: number, deliveryId: number): Promise<void> {
  await answerOf(
    api.POST('/api/webhook/{id}/deliveries/{delivery_id}/retry', {
      params: { path: { id, delivery_id: deliveryId } },
    }),
  );
}

/** A page of a webhook's delivery log (25 rows, newest first), and whether older rows follow. */
export interface DeliveriesPage {
  deliveries: Delivery[];
  hasOlder: boolean;
}

export async function listDeliveries(id: number, page: number): Promise<DeliveriesPage> {
  const call = api.GET('/api/webhook/{id}/deliveries', {
    params: { path: { id }, query: { page } },
  });
  const deliveries = await answerOf(call);
  const { data } = await call;
  return { deliveries, hasOlder: Boolean(data?.next) };
}
