import { createHmac, randomBytes } from 'node:crypto';
import { WebhookEvent, WebhookFormat } from './webhook-events';

/** One attempt's HTTP request (always a POST). */
export interface WireRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * The request that delivers `event` to a webhook of `format` signed with `secret`, for an attempt
 * made at `attemptAt` (docs/api.md#webhook-deliveries):
 * - `raspisms`, RaspiSMS's form: `webhook_timestamp` (the event's unix time), `webhook_type`,
 *   `webhook_random_id`, `webhook_signature` (hex HMAC-SHA256 of the random id keyed with the
 *   secret) and `body` (the payload as a JSON string), so that RaspiSMS receivers verify it;
 * - `standard`, Standard Webhooks: `{type, timestamp, data}` as JSON, signed in `webhook-signature`
 *   (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's decoded
 *   bytes), `webhook-timestamp` being the attempt's time, as its verifiers require.
 */
export function encodeDelivery(
  format: WebhookFormat,
  secret: string,
  event: WebhookEvent,
  attemptAt: Date,
): WireRequest {
  if (format === 'raspisms') {
    const form = new URLSearchParams({
      webhook_timestamp: String(unixSeconds(event.at)),
      webhook_type: event.type,
      webhook_random_id: event.id,
      webhook_signature: createHmac('sha256', secret).update(event.id).digest('hex'),
      body: JSON.stringify(event.payload),
    });
    return {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    };
  }
  const body = JSON.stringify({
    type: event.type,
    timestamp: event.at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    data: event.payload,
  });
  const timestamp = String(unixSeconds(attemptAt));
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key)
    .update(`${event.id}.${timestamp}.${body}`)
    .digest('base64');
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
    body,
  };
}

/** A new secret for a webhook of `format`: 32 hex characters, or `whsec_` and 24 random bytes. */
export function generateSecret(format: WebhookFormat): string {
  return format === 'standard'
    ? `whsec_${randomBytes(24).toString('base64')}`
    : randomBytes(16).toString('hex');
}

function unixSeconds(at: Date): number {
  return Math.floor(at.getTime() / 1000);
}
