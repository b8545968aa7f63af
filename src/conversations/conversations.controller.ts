import { Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { countryOf } from '../common/phone/phone-number';
import { AppConfig } from '../config/configuration';
import {
  parseConversationsParams,
  parseCorrespondentParams,
  parseThreadParams,
} from './conversations.params';
import { Conversation, ConversationMessage, ConversationsService } from './conversations.service';

const DATETIME: SchemaObject = {
  type: 'string',
  description: 'In the service time zone, YYYY-MM-DD HH:MM:SS',
  example: '2026-11-27 10:15:00',
} as const;

const NUMBER = ApiParam({
  name: 'number',
  type: 'string',
  description:
    'The correspondent: a phone number, international (+…, `%2B` in a URL) or national of your ' +
    "default_phone_country, or a received message's sender that is not a number, as listed",
});

const BEFORE = (what: string) =>
  ApiQuery({
    name: 'before',
    required: false,
    type: 'string',
    description: `Cursor from the \`next\` link of the page before: ${what}; absent for the newest`,
  });

const CONVERSATION: SchemaObject = {
  type: 'object',
  required: ['number', 'contact', 'last_at', 'last_text', 'last_direction', 'unread'],
  properties: {
    number: {
      type: 'string',
      description: 'In E.164, or a sender that is not a number as received',
      example: '+33612345678',
    },
    contact: {
      type: 'object',
      nullable: true,
      description: 'Your contact with this number (the first made when several), or null',
      required: ['id', 'name'],
      properties: { id: { type: 'integer' }, name: { type: 'string' } },
    },
    last_at: { ...DATETIME, description: 'Time of the newest message, sent or received' },
    last_text: { type: 'string', description: 'Text of the newest message' },
    last_direction: { type: 'string', enum: ['sent', 'received'] },
    unread: { type: 'integer', description: 'Received messages from this number still unread' },
  },
};

const MESSAGE: SchemaObject = {
  type: 'object',
  required: ['direction', 'id', 'at', 'text', 'status', 'id_phone'],
  properties: {
    direction: {
      type: 'string',
      enum: ['sent', 'received'],
      description: 'sent: a sended entry (id is its id); received: a received entry',
    },
    id: { type: 'integer' },
    at: DATETIME,
    text: { type: 'string' },
    status: {
      type: 'string',
      enum: ['unknown', 'delivered', 'failed', 'read', 'unread'],
      description: 'Sent: unknown, delivered or failed; received: read or unread',
    },
    id_phone: { type: 'integer', nullable: true },
  },
};

/** The caller's messages by correspondent (docs/api.md#conversations). */
@ApiTags('conversations')
@Controller('api/conversation')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'get_conversations',
    summary:
      "get_conversations: the caller's conversations (sent and received messages by " +
      'correspondent number), newest first, 25 per page, with the contact of each number, its ' +
      'newest message and its unread count; `next` leads to older ones.',
  })
  @BEFORE('the page after that one')
  @ApiEnvelopeResponse(
    { type: 'array', items: CONVERSATION },
    'Up to 25 conversations by their newest message, newest first; next when more follow',
  )
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Conversation>> {
    return this.conversations.list(
      user.id,
      user.apiKey,
      parseConversationsParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Get(':number')
  @ApiOperation({
    operationId: 'get_conversation',
    summary:
      "get_conversation: the caller's messages with one number, sent and received, the newest " +
      '25 in time order; `next` leads to the 25 before them.',
  })
  @NUMBER
  @BEFORE('the messages before the oldest of that page')
  @ApiEnvelopeResponse(
    { type: 'array', items: MESSAGE },
    'Up to 25 messages, oldest first; next when older ones exist',
  )
  thread(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<ConversationMessage>> {
    return this.conversations.thread(
      user.id,
      user.apiKey,
      parseThreadParams(params, countryOf(user)),
      publicBaseUrl(request, this.config),
    );
  }

  @Post(':number/read')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_conversation_read',
    summary:
      "post_conversation_read: marks the caller's unread messages from one number read; " +
      'answers how many were.',
  })
  @NUMBER
  @ApiEnvelopeResponse({ type: 'integer', example: 2 }, 'How many messages were marked read')
  markRead(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<number> {
    return this.conversations.markRead(user.id, parseCorrespondentParams(params, countryOf(user)));
  }
}
