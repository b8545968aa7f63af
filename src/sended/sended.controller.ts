import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import { ApiEnvelopeResponse, ApiNotFoundResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { Row } from '../entries/entries.repository';
import { parseSendedIdParams } from './sended.params';
import { SendedService } from './sended.service';

const SENDED_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your sent messages',
});

const DATETIME: SchemaObject = {
  type: 'string',
  example: '2030-01-31 08:30:00',
  description: 'In the service time zone',
};

/** A sent message as get_entries lists it. */
const SENDED_ENTRY: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    id_user: { type: 'integer' },
    id_phone: { type: 'integer', nullable: true, description: 'Null when no phone took it' },
    at: DATETIME,
    text: { type: 'string' },
    destination: { type: 'string', example: '+33612345678' },
    flash: { type: 'integer', enum: [0, 1] },
    mms: { type: 'integer', enum: [0, 1] },
    status: { type: 'string', enum: ['unknown', 'delivered', 'failed'] },
    error: { type: 'string', nullable: true, description: 'Why it failed' },
    uid: { type: 'string', nullable: true, description: "The provider's id of the message" },
    adapter: { type: 'string' },
    tag: { type: 'string', nullable: true },
    originating_scheduled: { type: 'integer', nullable: true },
    segments: { type: 'integer', description: 'SMS parts the text took' },
    encoding: { type: 'string', enum: ['GSM-7', 'UCS-2'] },
    created_at: DATETIME,
    updated_at: { ...DATETIME, nullable: true },
    refusals: {
      type: 'array',
      description:
        'The phones that refused it for a reason of their own before the one of id_phone, first ' +
        'first: it went through the next one (docs/dispatch.md#failover)',
      items: {
        type: 'object',
        required: ['id_phone', 'adapter', 'at', 'reason'],
        properties: {
          id_phone: { type: 'integer' },
          adapter: { type: 'string' },
          at: DATETIME,
          reason: { type: 'string' },
        },
      },
    },
    medias: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'id_user', 'path'],
        properties: {
          id: { type: 'integer' },
          id_user: { type: 'integer' },
          path: { type: 'string' },
        },
      },
    },
  },
};

/** get_sended and delete_sended (docs/api.md#get_sended). */
@ApiTags('sended')
@Controller('api/sended')
export class SendedController {
  constructor(private readonly sended: SendedService) {}

  @Get(':id')
  @ApiOperation({
    operationId: 'get_sended',
    summary: 'get_sended: one sent message of the caller, as get_entries lists it.',
  })
  @SENDED_ID
  @ApiEnvelopeResponse(SENDED_ENTRY, 'The sent message, with its medias')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'sent message')
  findOne(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.sended.findOne(user.id, parseSendedIdParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_sended',
    summary:
      'delete_sended: deletes a sent message of the caller with its media links; a media ' +
      'nothing else uses goes too.',
  })
  @SENDED_ID
  @ApiEnvelopeResponse({ type: 'boolean', example: true }, 'The sent message was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'sent message')
  remove(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.sended.remove(user.id, parseSendedIdParams(params));
  }
}
