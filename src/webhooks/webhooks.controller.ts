import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiErrorResponse,
  ApiNotFoundResponse,
} from '../common/http/openapi';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { AppConfig } from '../config/configuration';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import {
  MAX_URL_LENGTH,
  parseCreateWebhookParams,
  parseDeliveriesParams,
  parseDeliveryIdParams,
  parseUpdateWebhookParams,
  parseWebhookIdParams,
} from './webhooks.params';
import { WEBHOOK_FORMATS, WEBHOOK_TYPES } from '../events/webhook-events';
import {
  ATTEMPTS_SHOWN,
  DeliveryView,
  MAX_WEBHOOKS,
  WebhooksService,
  WebhookView,
} from './webhooks.service';

const WEBHOOK_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your webhooks',
});

const FIELDS: Record<string, SchemaObject> = {
  url: {
    type: 'string',
    maxLength: MAX_URL_LENGTH,
    description:
      "Absolute http or https URL, without credentials; its host must pass the server's " +
      'outbound policy (OUTBOUND_BLOCK_PRIVATE, OUTBOUND_ALLOW)',
  },
  type: { type: 'string', enum: [...WEBHOOK_TYPES], description: 'The events it receives' },
  format: {
    type: 'string',
    enum: [...WEBHOOK_FORMATS],
    default: 'raspisms',
    description: "RaspiSMS's form fields, or the Standard Webhooks convention",
  },
  secret: {
    type: 'string',
    description:
      'The signing key; generated when absent (32 hex characters for raspisms, `whsec_` + ' +
      'base64 of 24 bytes for standard)',
  },
  enabled: { type: 'boolean', default: true },
};

const WEBHOOK: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    id_user: { type: 'integer' },
    url: { type: 'string' },
    type: { type: 'string', enum: [...WEBHOOK_TYPES] },
    format: { type: 'string', enum: [...WEBHOOK_FORMATS] },
    secret: { type: 'string' },
    enabled: { type: 'boolean' },
    created_at: { type: 'string', example: '2030-01-31 08:30:00' },
    updated_at: { type: 'string', nullable: true },
  },
};

const ATTEMPT: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    started_at: { type: 'string', example: '2030-01-31 08:30:00' },
    duration_ms: { type: 'integer' },
    http_status: {
      type: 'integer',
      nullable: true,
      description: 'The HTTP status the endpoint answered; null without an answer',
    },
    answer: {
      type: 'string',
      nullable: true,
      description:
        'An excerpt of the body the endpoint answered, whatever its HTTP status; null without ' +
        'an answer (a network failure, a timeout) or with an empty one',
    },
    error: {
      type: 'string',
      nullable: true,
      description: 'Why the attempt did not deliver; null when it delivered',
    },
  },
};

const DELIVERY: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    last_http_status: { type: 'integer', nullable: true },
    last_error: { type: 'string', nullable: true },
    last_answer: {
      type: 'string',
      nullable: true,
      description:
        'An excerpt of the body the endpoint answered at the latest attempt, whatever its HTTP ' +
        'status; null without an answer (a network failure, a timeout) or with an empty one',
    },
    next_attempt_at: { type: 'string', nullable: true },
    created_at: { type: 'string' },
    updated_at: {
      type: 'string',
      nullable: true,
      description:
        "When the delivery last changed: its latest attempt's start or outcome, a retry or the " +
        'webhook disabled; null before its first attempt',
    },
    delivered_at: { type: 'string', nullable: true },
    attempt_log: {
      type: 'array',
      items: ATTEMPT,
      description: `Its latest attempts, at most ${ATTEMPTS_SHOWN}, newest first`,
    },
    attempt_log_total: {
      type: 'integer',
      description:
        'The attempts recorded in all; beyond attempt_log past ' +
        `${ATTEMPTS_SHOWN}. Deliveries attempted before the attempts were recorded count none`,
    },
  },
};

/** The webhook operations (docs/api.md#post_webhook and those after it). */
@ApiTags('webhooks')
@Controller('api/webhook')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @ApiOperation({
    operationId: 'post_webhook',
    summary: 'post_webhook: tells one of your systems of one type of event.',
  })
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', required: ['url', 'type'], properties: FIELDS } })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new webhook', 201)
  @ApiErrorResponse(422, `You have ${MAX_WEBHOOKS} webhooks already (error 8)`)
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.webhooks.create(user, parseCreateWebhookParams(params));
  }

  @Get()
  @ApiOperation({
    operationId: 'get_webhooks',
    summary: `get_webhooks: all your webhooks (at most ${MAX_WEBHOOKS}), by id.`,
  })
  @ApiEnvelopeResponse({ type: 'array', items: WEBHOOK }, 'Your webhooks')
  list(@CurrentUser() user: AuthenticatedUser): Promise<WebhookView[]> {
    return this.webhooks.list(user);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'get_webhook', summary: 'get_webhook: one of your webhooks.' })
  @WEBHOOK_ID
  @ApiEnvelopeResponse(WEBHOOK, 'The webhook, its secret included')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'webhook')
  read(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<WebhookView> {
    return this.webhooks.read(user, parseWebhookIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_webhook',
    summary:
      'post_update_webhook: changes the fields sent. A new format whose secret is not sent ' +
      'gets a generated secret when the stored one does not fit it.',
  })
  @WEBHOOK_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: FIELDS } })
  @ApiEnvelopeResponse(WEBHOOK, 'The webhook as it now is')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'webhook')
  update(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<WebhookView> {
    return this.webhooks.update(user, parseUpdateWebhookParams(params));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_webhook_test',
    summary: 'post_webhook_test: queues a `ping` event (payload `{}`) for the webhook.',
  })
  @WEBHOOK_ID
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the queued delivery')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'webhook')
  @ApiErrorResponse(422, 'The webhook is disabled (error 8)')
  test(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.webhooks.test(user, parseWebhookIdParams(params));
  }

  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'get_webhook_deliveries',
    summary: "get_webhook_deliveries: the webhook's delivery log, newest first, 25 per page.",
  })
  @WEBHOOK_ID
  @ApiQuery({ name: 'page', required: false, type: 'integer', description: 'From 0' })
  @ApiEnvelopeResponse({ type: 'array', items: DELIVERY }, 'Deliveries; next / prev pages')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'webhook')
  deliveries(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<DeliveryView>> {
    return this.webhooks.deliveries(
      user,
      parseDeliveriesParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_webhook_delivery_retry',
    summary: 'post_webhook_delivery_retry: queues a failed delivery again, due now.',
  })
  @WEBHOOK_ID
  @ApiParam({ name: 'delivery_id', type: 'integer', description: 'One of its deliveries' })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the delivery, queued again')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'delivery')
  @ApiErrorResponse(422, 'The webhook is disabled (error 128)')
  retry(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.webhooks.retry(user, parseDeliveryIdParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({ operationId: 'delete_webhook', summary: 'delete_webhook: deletes a webhook.' })
  @WEBHOOK_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The webhook was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'webhook')
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.webhooks.delete(user, parseWebhookIdParams(params));
  }
}
