import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { ChangesState } from '../common/auth/session';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Replayed } from '../common/http/envelope';
import { API_BODY_TYPES, ApiEnvelopeResponse, ApiErrorResponse } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { countryOf } from '../common/phone/phone-number';
import { AppConfig } from '../config/configuration';
import { Row } from '../entries/entries.repository';
import {
  ApiIdempotencyKey,
  IDEMPOTENCY_KEY_PARAMETER,
  REPLAYED_HEADERS,
} from '../idempotency/idempotency.openapi';
import { parseIdempotencyKey } from '../idempotency/idempotency.params';
import {
  parsePreviewParams,
  parseRemoveParams,
  parseScheduleParams,
  parseSendNowParams,
  parseUpdateScheduledParams,
} from './scheduled.params';
import { ScheduledService } from './scheduled.service';

const ID_LIST = (what: string): SchemaObject => ({
  type: 'array',
  items: { type: 'integer', minimum: 0 },
  description: `Ids of the caller's ${what}; a single id is accepted`,
});

const VALIDITY: SchemaObject = {
  type: 'integer',
  minimum: 1,
  maximum: 10080,
  description:
    'Minutes after at within which the message may still be handed to a provider; after, each ' +
    'recipient not sent is a failed entry. Default: no limit',
};

/** A message's priority, as post_scheduled and get_send_sms take it. */
const PRIORITY: SchemaObject = {
  type: 'string',
  enum: ['high', 'normal'],
  default: 'normal',
  description:
    "high: sent before every normal message waiting, a campaign's backlog included " +
    '(not the priority of a phone)',
};

/** A message's send window, as post_scheduled and get_send_sms take it. */
const WINDOW: SchemaObject = {
  type: 'string',
  maxLength: 255,
  example: 'mon-fri 08:00-20:00, sat 10:00-18:00',
  description:
    "When it may go out, in the user's timezone setting: none (any time, as for a one-time " +
    'code) or HH:MM-HH:MM ranges separated by commas, each optionally preceded by days; a range ' +
    "may cross midnight. Default: the user's send_window setting (docs/dispatch.md#send-windows)",
};

const POST_SCHEDULED_BODY: SchemaObject = {
  type: 'object',
  required: ['text'],
  properties: {
    at: {
      type: 'string',
      example: '2030-01-31 08:30:00',
      description: 'When to send, `YYYY-MM-DD HH:MM:SS` in the service time zone; default now',
    },
    text: { type: 'string', maxLength: 1000, description: 'At most 1000 Unicode characters' },
    id_phone: { type: 'integer', minimum: 0, description: "One of the caller's phones" },
    id_phone_group: {
      type: 'integer',
      minimum: 0,
      description: "One of the caller's phone groups; not with id_phone",
    },
    flash: { type: 'boolean', default: false, description: '1 true on yes / 0 false off no' },
    mms: {
      type: 'boolean',
      default: false,
      description: "Send as MMS with the medias; needs the user's mms setting",
    },
    tag: { type: 'string', maxLength: 1000, description: 'Applies to every SMS of the message' },
    validity: VALIDITY,
    priority: PRIORITY,
    window: WINDOW,
    numbers: {
      type: 'array',
      description:
        'Recipients: numbers, or {number, data} with data a JSON string (an object is encoded); ' +
        'invalid numbers are dropped; a single value is accepted',
      items: {
        oneOf: [
          { type: 'string', example: '+33612345678' },
          {
            type: 'object',
            required: ['number'],
            properties: {
              number: { type: 'string', example: '+33612345678' },
              data: { type: 'string', example: '{"firstname":"John"}', default: '[]' },
            },
          },
        ],
      },
    },
    contacts: ID_LIST('contacts'),
    groups: ID_LIST('groups'),
    conditional_groups: ID_LIST('conditional groups'),
    numbers_csv: {
      type: 'string',
      format: 'binary',
      description:
        'multipart only: a CSV whose first line is a header; first column the number, the ' +
        'other columns template data named by their header',
    },
    medias: {
      type: 'array',
      items: { type: 'string', format: 'binary' },
      description: 'multipart only (`medias` or `medias[]`): files of the MMS, used when mms is on',
    },
    idempotency_key: IDEMPOTENCY_KEY_PARAMETER,
  },
};

/** post_scheduled's fields but the files, none required: a field not sent keeps its value. */
const {
  medias: _medias,
  numbers_csv: _csv,
  idempotency_key: _key,
  ...UPDATABLE_FIELDS
} = POST_SCHEDULED_BODY.properties ?? {};
const UPDATE_SCHEDULED_BODY: SchemaObject = { type: 'object', properties: UPDATABLE_FIELDS };

/** Every property of `properties` required: a conforming answer has all of them. */
function complete(properties: Record<string, SchemaObject>): SchemaObject {
  return { type: 'object', required: Object.keys(properties), properties };
}

const DATETIME: SchemaObject = {
  type: 'string',
  example: '2030-01-31 08:30:00',
  description: 'In the service time zone',
};
const MAYBE_DATETIME: SchemaObject = { ...DATETIME, nullable: true };
const MAYBE_ID: SchemaObject = { type: 'integer', nullable: true };
const FLAG: SchemaObject = { type: 'integer', enum: [0, 1] };

/** A scheduled message as get_entries lists it, with what it is sent to. */
const SCHEDULED_ENTRY = complete({
  id: { type: 'integer' },
  id_user: { type: 'integer' },
  at: DATETIME,
  text: { type: 'string' },
  flash: FLAG,
  id_phone: MAYBE_ID,
  id_phone_group: MAYBE_ID,
  mms: FLAG,
  tag: { type: 'string', nullable: true },
  created_at: DATETIME,
  updated_at: MAYBE_DATETIME,
  validity: {
    type: 'integer',
    nullable: true,
    description: 'Minutes after at within which it may be sent; null: no limit',
  },
  priority: { type: 'string', enum: ['high', 'normal'] },
  window: {
    type: 'string',
    nullable: true,
    description: "The window it was given, or null for its user's send_window setting",
  },
  send_after: {
    ...DATETIME,
    description: 'When it may go out: its at, or the next opening of its window from it',
  },
  numbers: {
    type: 'array',
    items: complete({
      id: { type: 'integer' },
      id_scheduled: { type: 'integer' },
      number: { type: 'string', example: '+33612345678' },
      data: { type: 'string', example: '{"firstname":"John"}', description: 'JSON, as stored' },
      created_at: DATETIME,
      updated_at: MAYBE_DATETIME,
    }),
  },
  contacts: {
    type: 'array',
    items: complete({
      id: { type: 'integer' },
      id_user: { type: 'integer' },
      name: { type: 'string' },
      number: { type: 'string', example: '+33612345678' },
      data: { type: 'string', nullable: true, description: 'A JSON object, as stored' },
      created_at: DATETIME,
      updated_at: MAYBE_DATETIME,
    }),
  },
  groups: {
    type: 'array',
    items: complete({
      id: { type: 'integer' },
      id_user: { type: 'integer' },
      name: { type: 'string' },
      created_at: DATETIME,
      updated_at: MAYBE_DATETIME,
    }),
  },
  conditional_groups: {
    type: 'array',
    items: complete({
      id: { type: 'integer' },
      id_user: { type: 'integer' },
      name: { type: 'string' },
      condition: { type: 'string', nullable: true },
      created_at: DATETIME,
      updated_at: MAYBE_DATETIME,
    }),
  },
  medias: {
    type: 'array',
    items: complete({
      id: { type: 'integer' },
      id_user: { type: 'integer' },
      path: { type: 'string' },
    }),
  },
});

/** What post_scheduled_preview answers: the text one contact would get, and what it costs. */
const PREVIEW = complete({
  text: { type: 'string', description: 'Rendered, and transliterated with force_gsm_alphabet' },
  segments: { type: 'integer', minimum: 1, description: 'SMS parts the text takes' },
  encoding: { type: 'string', enum: ['GSM-7', 'UCS-2'] },
});

const SCHEDULED_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of the scheduled message',
});

/**
 * post_scheduled, get_send_sms, delete_scheduled, get_scheduled and post_update_scheduled
 * (docs/api.md).
 */
@ApiTags('scheduled')
@Controller('api')
export class ScheduledController {
  constructor(
    private readonly scheduled: ScheduledService,
    private readonly config: AppConfig,
  ) {}

  @Post('scheduled')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'post_scheduled',
    summary:
      'post_scheduled: schedules a message to numbers, contacts, groups, conditional groups ' +
      'or a CSV of numbers, optionally as an MMS with medias.',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json')
  @ApiBody({ schema: POST_SCHEDULED_BODY })
  @ApiIdempotencyKey()
  @ApiEnvelopeResponse(
    { type: 'integer' },
    'The id of the scheduled message',
    201,
    REPLAYED_HEADERS,
  )
  @ApiErrorResponse(409, 'The first request with this idempotency key is still being processed')
  @ApiErrorResponse(
    413,
    'numbers_csv or a media too large, or more CSV rows than allowed (error 64)',
  )
  @ApiErrorResponse(
    422,
    'The message could not be created (error 8), or the idempotency key was used for a ' +
      'different request (error 2)',
  )
  create(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<number | Replayed> {
    return this.scheduled.schedule(
      user,
      parseScheduleParams(params, request.files ?? [], countryOf(user), this.config.timeZone),
      parseIdempotencyKey(request.headers['idempotency-key'], params),
    );
  }

  @Get('send-sms')
  @ChangesState()
  @ApiOperation({
    operationId: 'get_send_sms',
    summary: 'get_send_sms: sends one SMS to one number now (a scheduled message due now).',
  })
  @ApiQuery({ name: 'to', required: true, description: 'Phone number, e.g. +33612345678' })
  @ApiQuery({ name: 'text', required: true, description: 'At most 1000 Unicode characters' })
  @ApiQuery({
    name: 'id_phone',
    required: false,
    type: 'integer',
    description: "One of the caller's phones; default: the service chooses",
  })
  @ApiQuery({ name: 'priority', required: false, schema: PRIORITY })
  @ApiQuery({ name: 'validity', required: false, schema: VALIDITY })
  @ApiQuery({ name: 'window', required: false, schema: WINDOW })
  @ApiQuery({ name: 'idempotency_key', required: false, schema: IDEMPOTENCY_KEY_PARAMETER })
  @ApiIdempotencyKey()
  @ApiEnvelopeResponse(
    { type: 'integer' },
    'The id of the scheduled message',
    200,
    REPLAYED_HEADERS,
  )
  @ApiErrorResponse(409, 'The first request with this idempotency key is still being processed')
  @ApiErrorResponse(
    422,
    'id_phone is not one of your phones, or the creation failed (error 8), or the idempotency ' +
      'key was used for a different request (error 2)',
  )
  sendSms(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<number | Replayed> {
    return this.scheduled.sendNow(
      user,
      parseSendNowParams(params, countryOf(user)),
      parseIdempotencyKey(request.headers['idempotency-key'], params),
    );
  }

  // Before the `:id` routes, which would take `preview` for an id.
  @Post('scheduled/preview')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_scheduled_preview',
    summary:
      'post_scheduled_preview: the text as the dispatch would send it to one of your contacts ' +
      '(rendered as a template when the setting templating is on, transliterated when ' +
      'force_gsm_alphabet is on), with its SMS segments and encoding. Creates nothing.',
  })
  @API_BODY_TYPES
  @ApiBody({
    schema: {
      type: 'object',
      required: ['text', 'id_contact'],
      properties: {
        text: POST_SCHEDULED_BODY.properties?.text ?? {},
        id_contact: { type: 'integer', minimum: 0, description: "One of the caller's contacts" },
      },
    },
  })
  @ApiEnvelopeResponse(PREVIEW, 'The text the contact would receive')
  preview(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<{ text: string; segments: number; encoding: string }> {
    return this.scheduled.preview(user, parsePreviewParams(params));
  }

  @Get('scheduled/:id')
  @ApiOperation({
    operationId: 'get_scheduled',
    summary: 'get_scheduled: one of the pending scheduled messages of the caller, as listed.',
  })
  @SCHEDULED_ID
  @ApiEnvelopeResponse(
    SCHEDULED_ENTRY,
    'The message with numbers, contacts, groups, conditional_groups and medias',
  )
  @ApiErrorResponse(404, "No such pending scheduled message among the caller's (error 2)")
  findOne(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.scheduled.findOne(user.id, parseRemoveParams(params));
  }

  @Post('scheduled/:id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_scheduled',
    summary:
      'post_update_scheduled: changes the fields sent of a message the dispatch has not taken; ' +
      "post_scheduled's rules apply to the result. A list sent replaces the stored one; " +
      'medias and numbers_csv are refused.',
  })
  @SCHEDULED_ID
  @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json')
  @ApiBody({ schema: UPDATE_SCHEDULED_BODY })
  @ApiEnvelopeResponse(SCHEDULED_ENTRY, 'The message as it now is, as listed')
  @ApiErrorResponse(
    404,
    "No such scheduled message among the caller's, or the dispatch has taken it (error 128)",
  )
  @ApiErrorResponse(422, 'The database refused the update (error 128)')
  update(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Row> {
    return this.scheduled.update(user, parseUpdateScheduledParams(params, request.files ?? []));
  }

  @Delete('scheduled/:id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_scheduled',
    summary:
      'delete_scheduled: deletes a scheduled message of the caller that has not been sent yet, ' +
      'with its numbers, links and medias.',
  })
  @SCHEDULED_ID
  @ApiEnvelopeResponse({ type: 'boolean', example: true }, 'The message was deleted')
  @ApiErrorResponse(404, "No such scheduled message among the caller's (error 32)")
  remove(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.scheduled.remove(user.id, parseRemoveParams(params));
  }
}
