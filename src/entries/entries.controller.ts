import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { Row } from './entries.repository';
import { ENTRY_TYPES } from './entry-types';
import { EntriesService } from './entries.service';

@ApiTags('entries')
@Controller('api/list')
export class EntriesController {
  constructor(
    private readonly entries: EntriesService,
    private readonly config: AppConfig,
  ) {}

  @Get([
    ':entry_type',
    ':entry_type/:page',
    ':entry_type/after/:after_id',
    ':entry_type/before/:before_id',
  ])
  @ApiOperation({
    operationId: 'get_entries',
    summary: "Lists the caller's entries of one type, 25 per page, ordered by id",
  })
  @ApiParam({ name: 'entry_type', enum: ENTRY_TYPES })
  @ApiQuery({ name: 'page', required: false, type: Number })
  @ApiQuery({ name: 'after_id', required: false, type: Number })
  @ApiQuery({ name: 'before_id', required: false, type: Number })
  @ApiEnvelopeResponse(
    { type: 'array', items: { type: 'object' } },
    'The entries, with next / prev links',
  )
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.entries.list(user.id, user.apiKey, params, publicBaseUrl(request, this.config));
  }
}
