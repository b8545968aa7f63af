import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
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
  @ApiEnvelopeResponse(
    { type: 'object', additionalProperties: true },
    'The sent message, with its medias',
  )
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
