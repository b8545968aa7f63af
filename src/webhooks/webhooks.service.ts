import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Paged } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { AuthenticatedUser } from '../common/http/request';
import { PAGE_SIZE } from '../common/paging/cursor';
import { OutboundPolicy } from '../common/net/outbound-policy';
import { utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { WebhookDelivery } from '../events/entities/webhook-delivery.entity';
import { Webhook } from './entities/webhook.entity';
import {
  checkSecret,
  CreateWebhookInput,
  DeliveriesInput,
  DeliveryIdInput,
  UpdateWebhookInput,
  WebhookIdInput,
} from './webhooks.params';
import { WebhookFormat } from '../events/webhook-events';
import { generateSecret } from '../events/webhook-wire';
import { AttemptRow, WebhookRow, WebhooksRepository } from './webhooks.repository';

/** Webhooks per user: a user's systems need a handful; more is a client creating in a loop. */
export const MAX_WEBHOOKS = 100;

/** A webhook as the API shows it. */
export interface WebhookView {
  id: number;
  id_user: number;
  url: string;
  type: string;
  format: string;
  secret: string;
  enabled: boolean;
  created_at: string | null;
  updated_at: string | null;
}

/** A delivery as the log shows it. */
export interface DeliveryView {
  id: number;
  event_type: string;
  status: string;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  /** An excerpt of what the endpoint answered at the latest attempt, a 2xx included. */
  last_answer: string | null;
  next_attempt_at: string | null;
  created_at: string | null;
  /** When the row last changed (its latest attempt, as a rule); null before the first one. */
  updated_at: string | null;
  delivered_at: string | null;
  /** Its latest attempts (at most ATTEMPTS_SHOWN), newest first. */
  attempt_log: AttemptView[];
  /** The attempts recorded in all: more than `attempt_log` holds past ATTEMPTS_SHOWN. */
  attempt_log_total: number;
}

/** One attempt of a delivery, as the log shows it. */
export interface AttemptView {
  id: number;
  started_at: string | null;
  duration_ms: number;
  /** The endpoint's HTTP status; null when it did not answer (network failure, timeout). */
  http_status: number | null;
  /** An excerpt of the body it answered; null without an answer, or an empty one. */
  answer: string | null;
  /** Why the attempt failed; null when it delivered. */
  error: string | null;
}

/** Attempts listed per delivery in the log. */
export const ATTEMPTS_SHOWN = 20;

/**
 * post_webhook, get_webhooks, get_webhook, post_update_webhook, delete_webhook,
 * post_webhook_test and get_webhook_deliveries (docs/api.md).
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly outbound: OutboundPolicy,
    private readonly config: AppConfig,
  ) {}

  /** post_webhook: the new webhook's id. Rules 1 to 5 were checked at the edge. */
  async create(user: AuthenticatedUser, input: CreateWebhookInput): Promise<number> {
    // Rule 6.
    await this.checkOutbound(input.url);
    // Rule 7.
    const id = await this.webhooks.create(
      user.id,
      {
        url: input.url.href,
        type: input.type,
        format: input.format,
        secret: input.secret ?? generateSecret(input.format),
        enabled: input.enabled ? 1 : 0,
      },
      MAX_WEBHOOKS,
    );
    if (id === null) {
      throw ApiError.refused(
        ErrorCode.CANNOT_CREATE,
        `you have ${MAX_WEBHOOKS} webhooks already, the most a user may have.`,
      );
    }
    return id;
  }

  /** get_webhooks: every webhook of the caller, by id. */
  async list(user: AuthenticatedUser): Promise<WebhookView[]> {
    return (await this.webhooks.list(user.id)).map((webhook) => this.view(webhook));
  }

  /** get_webhook. */
  async read(user: AuthenticatedUser, { id }: WebhookIdInput): Promise<WebhookView> {
    return this.view(await this.owned(user, id, ErrorCode.INVALID_PARAMETER));
  }

  /** post_update_webhook: the webhook as it now is. */
  async update(user: AuthenticatedUser, input: UpdateWebhookInput): Promise<WebhookView> {
    // Rule 1.
    const stored = await this.owned(user, input.id, ErrorCode.CANNOT_UPDATE);
    // Rule 2.
    const { url, type, format, secret, enabled } = input.changes.get();
    // Rule 3: the secret fits the format the webhook will have; one that no longer fits a new
    // format, and is not replaced, is replaced by a generated one.
    const nextFormat = (format ?? stored.format) as WebhookFormat;
    let nextSecret = secret;
    if (secret !== undefined) {
      checkSecret(secret, nextFormat);
    } else if (format !== undefined && !fits(stored.secret, nextFormat)) {
      nextSecret = generateSecret(nextFormat);
    }
    // Rule 4.
    if (url !== undefined) {
      await this.checkOutbound(url);
    }
    const changes: Partial<WebhookRow> = {
      url: url?.href,
      type,
      format,
      secret: nextSecret,
      enabled: enabled === undefined ? undefined : enabled ? 1 : 0,
    };
    const sent = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as Partial<WebhookRow>;
    if (!(await this.webhooks.update(user.id, stored.id, sent))) {
      throw noWebhook(ErrorCode.CANNOT_UPDATE, input.id);
    }
    return this.view(await this.owned(user, input.id, ErrorCode.CANNOT_UPDATE));
  }

  /** delete_webhook. */
  async delete(user: AuthenticatedUser, { id }: WebhookIdInput): Promise<true> {
    if (!(await this.webhooks.delete(user.id, id))) {
      throw noWebhook(ErrorCode.CANNOT_DELETE, id);
    }
    return true;
  }

  /** post_webhook_test: queues a `ping` event for the webhook; the delivery's id. */
  async test(user: AuthenticatedUser, { id }: WebhookIdInput): Promise<number> {
    const queued = await this.webhooks.ping(user.id, id);
    if (queued === null) {
      throw noWebhook(ErrorCode.INVALID_PARAMETER, id);
    }
    if (queued === false) {
      throw ApiError.refused(
        ErrorCode.CANNOT_CREATE,
        `webhook ${id} is disabled: enable it (enabled=1) to test it.`,
      );
    }
    return queued;
  }

  /** post_webhook_delivery_retry: queues a failed delivery again; its id. */
  async retry(user: AuthenticatedUser, { id, deliveryId }: DeliveryIdInput): Promise<number> {
    const found = await this.webhooks.retry(user.id, id, deliveryId);
    if (!found) {
      throw ApiError.notFound(
        ErrorCode.INVALID_PARAMETER,
        `delivery_id : webhook ${id} has no delivery ${deliveryId}.`,
      );
    }
    if (found.status !== 'failed') {
      throw ApiError.invalid(
        `delivery_id : delivery ${deliveryId} is ${found.status}: only a failed delivery is retried.`,
      );
    }
    if (!found.enabled) {
      throw ApiError.refused(
        ErrorCode.CANNOT_UPDATE,
        `webhook ${id} is disabled: enable it (enabled=1) to retry its deliveries.`,
      );
    }
    return deliveryId;
  }

  /** get_webhook_deliveries: a page of the webhook's delivery log, newest first. */
  async deliveries(
    user: AuthenticatedUser,
    { id, page }: DeliveriesInput,
    linkBase: string,
  ): Promise<Paged<DeliveryView>> {
    await this.owned(user, id, ErrorCode.INVALID_PARAMETER);
    const rows = await this.webhooks.deliveries(id, page, PAGE_SIZE);
    const shown = rows.slice(0, PAGE_SIZE);
    const attempts = new Map<number, AttemptRow[]>();
    for (const attempt of await this.webhooks.attempts(
      shown.map((row) => row.id),
      ATTEMPTS_SHOWN,
    )) {
      const delivery = Number(attempt.id_delivery);
      attempts.set(delivery, [...(attempts.get(delivery) ?? []), attempt]);
    }
    const link = (to: number) =>
      buildLink(linkBase, `/api/webhook/${id}/deliveries/`, { page: to, api_key: user.apiKey });
    return new Paged(
      shown.map((row) => this.deliveryView(row, attempts.get(Number(row.id)) ?? [])),
      rows.length > PAGE_SIZE ? link(page + 1) : null,
      page > 0 ? link(page - 1) : null,
    );
  }

  private deliveryView(row: WebhookDelivery, attempts: AttemptRow[]): DeliveryView {
    const zone = (utc: string | null) => utcToZone(utc, this.config.timeZone);
    return {
      id: row.id,
      event_type: row.event_type,
      status: row.status,
      attempts: Number(row.attempts),
      last_http_status: row.last_http_status === null ? null : Number(row.last_http_status),
      last_error: row.last_error,
      last_answer: row.last_answer,
      next_attempt_at: zone(row.next_attempt_at),
      created_at: zone(row.created_at),
      updated_at: zone(row.updated_at),
      delivered_at: zone(row.delivered_at),
      attempt_log: attempts.map((attempt) => ({
        id: Number(attempt.id),
        started_at: zone(attempt.started_at),
        duration_ms: Number(attempt.duration_ms),
        http_status: attempt.http_status === null ? null : Number(attempt.http_status),
        answer: attempt.answer,
        error: attempt.error,
      })),
      attempt_log_total: attempts.length === 0 ? 0 : Number(attempts[0].total),
    };
  }

  private async owned(
    user: AuthenticatedUser,
    id: number,
    code: ErrorCode.INVALID_PARAMETER | ErrorCode.CANNOT_UPDATE,
  ): Promise<Webhook> {
    const webhook = await this.webhooks.findOwned(user.id, id);
    if (!webhook) {
      throw noWebhook(code, id);
    }
    return webhook;
  }

  /** The URL's host passes the outbound policy now; deliveries check it again each time. */
  private async checkOutbound(url: URL): Promise<void> {
    const refusal = await this.outbound.check(url);
    if (refusal) {
      throw ApiError.invalid(`url : ${refusal.message}`);
    }
  }

  private view(webhook: Webhook): WebhookView {
    return {
      id: webhook.id,
      id_user: webhook.id_user,
      url: webhook.url,
      type: webhook.type,
      format: webhook.format,
      secret: webhook.secret,
      enabled: Number(webhook.enabled) !== 0,
      created_at: utcToZone(webhook.created_at, this.config.timeZone),
      updated_at: utcToZone(webhook.updated_at, this.config.timeZone),
    };
  }
}

function fits(secret: string, format: WebhookFormat): boolean {
  try {
    checkSecret(secret, format);
    return true;
  } catch {
    return false;
  }
}

/** The same answer whether the webhook does not exist or is another user's. */
function noWebhook(code: ErrorCode, id: number): ApiError {
  return ApiError.notFound(code, `id : you have no webhook ${id}.`);
}
