import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { isAbsent, Params, parseBoolean, parseId } from '../common/params/parse';
import {
  WEBHOOK_FORMATS,
  WEBHOOK_TYPES,
  WebhookFormat,
  WebhookType,
} from '../events/webhook-events';

export const MAX_URL_LENGTH = 2048;

/** The fields of a webhook; an update leaves those not sent undefined. */
export interface WebhookFields {
  url?: URL;
  type?: WebhookType;
  format?: WebhookFormat;
  secret?: string;
  enabled?: boolean;
}

/** post_webhook's parameters (docs/api.md#post_webhook), rules 1 to 5. */
export interface CreateWebhookInput {
  url: URL;
  type: WebhookType;
  format: WebhookFormat;
  /** Undefined: one is generated for the format. */
  secret?: string;
  enabled: boolean;
}

/** post_update_webhook's parameters: rule 1 looks the webhook up before the fields are read. */
export interface UpdateWebhookInput {
  id: number;
  changes: Deferred<WebhookFields>;
}

export interface WebhookIdInput {
  id: number;
}

/** get_webhook_deliveries: the webhook and the page, from 0. */
export interface DeliveriesInput {
  id: number;
  page: number;
}

export function parseCreateWebhookParams(params: Params): CreateWebhookInput {
  // Rules 1 and 2.
  for (const name of ['url', 'type'] as const) {
    if (isAbsent(params[name])) {
      throw ApiError.missing(`${name} is required.`);
    }
  }
  const fields = parseFields(params);
  const format = fields.format ?? 'raspisms';
  // Rule 4.
  if (fields.secret !== undefined) {
    checkSecret(fields.secret, format);
  }
  return {
    url: fields.url!,
    type: fields.type!,
    format,
    secret: fields.secret,
    enabled: fields.enabled ?? true,
  };
}

export function parseUpdateWebhookParams(params: Params): UpdateWebhookInput {
  return { id: requiredId(params.id), changes: Deferred.parse(() => parseFields(params)) };
}

export function parseWebhookIdParams(params: Params): WebhookIdInput {
  return { id: requiredId(params.id) };
}

/** post_webhook_delivery_retry: the webhook and one of its deliveries. */
export interface DeliveryIdInput {
  id: number;
  deliveryId: number;
}

export function parseDeliveryIdParams(params: Params): DeliveryIdInput {
  const id = requiredId(params.id);
  const deliveryId = parseId(params.delivery_id, 'delivery_id');
  if (deliveryId === undefined) {
    throw ApiError.missing("delivery_id is required: the id of one of the webhook's deliveries.");
  }
  return { id, deliveryId };
}

export function parseDeliveriesParams(params: Params): DeliveriesInput {
  return { id: requiredId(params.id), page: parseId(params.page, 'page') ?? 0 };
}

/** Rules 1 to 5 on the fields sent; the secret's fit to the format is the caller's to check. */
function parseFields(params: Params): WebhookFields {
  return {
    url: isAbsent(params.url) ? undefined : parseUrl(params.url),
    type: oneOf(params.type, 'type', WEBHOOK_TYPES),
    format: oneOf(params.format, 'format', WEBHOOK_FORMATS),
    secret: isAbsent(params.secret) ? undefined : text(params.secret, 'secret'),
    enabled: params.enabled === undefined ? undefined : parseBoolean(params.enabled, 'enabled'),
  };
}

function parseUrl(value: unknown): URL {
  const given = text(value, 'url');
  if (given.length > MAX_URL_LENGTH) {
    throw ApiError.invalid(`url must be at most ${MAX_URL_LENGTH} characters long.`);
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw ApiError.invalid('url must be an absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ApiError.invalid(`url must be an http or https URL, not ${url.protocol.slice(0, -1)}.`);
  }
  if (url.username || url.password) {
    // Credentials in a URL end up in logs and proxies: a receiver checks the signature instead.
    throw ApiError.invalid('url must not hold a user name or password.');
  }
  return url;
}

/**
 * Whether `secret` fits `format` (docs/api.md#post_webhook): `whsec_` and the base64 of at least
 * 24 bytes for `standard`, as Standard Webhooks' verifiers decode it; 16 to 128 printable ASCII
 * characters for `raspisms`.
 */
export function checkSecret(secret: string, format: WebhookFormat): void {
  if (format === 'standard') {
    const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : null;
    if (
      encoded === null ||
      !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ||
      secret.length > 128 ||
      Buffer.from(encoded, 'base64').length < 24
    ) {
      throw ApiError.invalid(
        'secret : a standard webhook\'s secret is "whsec_" followed by the base64 of at least ' +
          '24 bytes (omit it to have one generated).',
      );
    }
    return;
  }
  if (!/^[\x21-\x7e]{16,128}$/.test(secret)) {
    throw ApiError.invalid(
      "secret : a raspisms webhook's secret is 16 to 128 printable ASCII characters, without " +
        'spaces (omit it to have one generated).',
    );
  }
}

/** A new secret for `format`: what RaspiSMS-style receivers and Standard Webhooks expect. */
function oneOf<T extends string>(
  value: unknown,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw ApiError.invalid(`${name} must be one of : ${allowed.join(', ')}.`);
  }
  return value as T;
}

function text(value: unknown, name: string): string {
  if (typeof value !== 'string') {
    throw ApiError.invalid(`${name} must be a string.`);
  }
  return value;
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your webhooks.');
  }
  return id;
}
