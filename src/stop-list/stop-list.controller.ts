import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Paged, WithStatus } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiEnvelopeResponse, envelopeSchema } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { countryOf } from '../common/phone/phone-number';
import { AppConfig } from '../config/configuration';
import { parseAddStopParams, parseListStopsParams, parseStopIdParams } from './stop-list.params';
import { StopRow } from './stop-list.repository';
import { StopListService } from './stop-list.service';

const STOP_ROW = {
  type: 'object' as const,
  properties: {
    id: { type: 'integer' },
    number: { type: 'string', description: 'In E.164', example: '+33612345678' },
    created_at: { type: 'string', description: 'In the service time zone, YYYY-MM-DD HH:MM:SS' },
  },
};

/** The STOP list (docs/api.md#get_stop, #post_stop, #delete_stop). */
@ApiTags('stop list')
@Controller('api/stop')
export class StopListController {
  constructor(
    private readonly stops: StopListService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'get_stop',
    summary:
      "get_stop: lists the caller's stopped numbers, 25 per page, ordered by id, paged as " +
      'get_entries (page, after_id, before_id).',
  })
  @ApiQuery({ name: 'page', required: false, type: 'integer', description: 'Page index, from 0' })
  @ApiQuery({ name: 'after_id', required: false, type: 'integer', description: 'Entries after it' })
  @ApiQuery({
    name: 'before_id',
    required: false,
    type: 'integer',
    description: 'Entries before it',
  })
  @ApiEnvelopeResponse({ type: 'array', items: STOP_ROW }, 'Up to 25 numbers; next / prev links')
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<StopRow>> {
    return this.stops.list(user, parseListStopsParams(params), publicBaseUrl(request, this.config));
  }

  @Post()
  @ApiOperation({
    operationId: 'post_stop',
    summary:
      'post_stop: adds a number to the STOP list (201 with the new id), or finds it there ' +
      'already (200 with its id).',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['number'],
      properties: {
        number: {
          type: 'string',
          description:
            'A phone number, international (+…) or national of your default_phone_country',
          example: '+33612345678',
        },
      },
    },
  })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the number added', 201)
  @ApiResponse({
    status: 200,
    description: 'The number was on the list already: its id',
    schema: envelopeSchema({ type: 'integer' }),
  })
  add(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<WithStatus<number>> {
    return this.stops.add(user, parseAddStopParams(params, countryOf(user)));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_stop',
    summary: 'delete_stop: removes a number from the STOP list; messages reach it again.',
  })
  @ApiParam({ name: 'id', type: 'integer', description: 'Id of a number of your STOP list' })
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The number was removed')
  @ApiResponse({
    status: 404,
    description: "No such number on your STOP list (error 32); the same for another user's",
    schema: envelopeSchema({ type: 'object' }),
  })
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.stops.delete(user, parseStopIdParams(params));
  }
}
