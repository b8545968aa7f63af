import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse, ApiErrorResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { Row } from '../entries/entries.repository';
import { parseReceivedIdParams, parseReceivedStatusParams } from './received.params';
import { ReceivedService } from './received.service';

const RECEIVED_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your received messages',
});

const ENTRY = ApiEnvelopeResponse(
  { type: 'object', additionalProperties: true },
  'The received message as get_entries lists it, with its medias',
);

/** get_received, post_update_received and delete_received (docs/api.md#get_received). */
@ApiTags('received')
@Controller('api/received')
export class ReceivedController {
  constructor(private readonly received: ReceivedService) {}

  @Get(':id')
  @ApiOperation({
    operationId: 'get_received',
    summary: 'get_received: one received message of the caller, as get_entries lists it.',
  })
  @RECEIVED_ID
  @ENTRY
  @ApiErrorResponse(404, "No such received message among the caller's (error 2)")
  findOne(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.received.findOne(user.id, parseReceivedIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_received',
    summary: 'post_update_received: marks a received message of the caller read or unread.',
  })
  @RECEIVED_ID
  @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['read', 'unread'] } },
    },
  })
  @ENTRY
  @ApiErrorResponse(400, 'status missing (error 4) or not read / unread (error 2)')
  @ApiErrorResponse(404, "No such received message among the caller's (error 128)")
  setStatus(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.received.setStatus(user.id, parseReceivedStatusParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_received',
    summary:
      'delete_received: deletes a received message of the caller with its media links; a ' +
      'media nothing else uses goes too.',
  })
  @RECEIVED_ID
  @ApiEnvelopeResponse({ type: 'boolean', example: true }, 'The received message was deleted')
  @ApiErrorResponse(404, "No such received message among the caller's (error 32)")
  remove(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.received.remove(user.id, parseReceivedIdParams(params));
  }
}
