import { applyDecorators, Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { parseEntriesParams } from './entries.params';
import { Row } from './entries.repository';
import { ENTRY_TYPES } from './entry-types';
import { EntriesService } from './entries.service';

const ENTRY_TYPE = ApiParam({ name: 'entry_type', enum: ENTRY_TYPES });
const LISTING = ApiEnvelopeResponse(
  { type: 'array', items: { type: 'object', additionalProperties: true } },
  'Up to 25 entries ordered by id, with the extra fields of their type; next / prev links',
);
const QUERY_CURSORS = applyDecorators(
  ApiQuery({ name: 'page', required: false, type: 'integer', description: 'Page index, from 0' }),
  ApiQuery({ name: 'after_id', required: false, type: 'integer', description: 'Entries after it' }),
  ApiQuery({
    name: 'before_id',
    required: false,
    type: 'integer',
    description: 'Entries before it',
  }),
);
const SUMMARY =
  "get_entries: lists the caller's entries of one type, 25 per page, ordered by id. A cursor " +
  '(after_id, before_id) wins over page; giving both cursors is refused.';

/**
 * get_entries under its four path forms (docs/api-choices.md#paths-and-methods); they differ only
 * in where the cursor is. One handler per form, so the OpenAPI document describes each path.
 */
@ApiTags('entries')
@Controller('api/list/:entry_type')
export class EntriesController {
  constructor(
    private readonly entries: EntriesService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'get_entries', summary: SUMMARY })
  @ENTRY_TYPE
  @QUERY_CURSORS
  @LISTING
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.entries.list(
      user.id,
      user.apiKey,
      parseEntriesParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Get(':page')
  @ApiOperation({ operationId: 'get_entries_page', summary: SUMMARY })
  @ENTRY_TYPE
  @ApiParam({ name: 'page', type: 'integer' })
  @LISTING
  listPage(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.list(user, params, request);
  }

  @Get('after/:after_id')
  @ApiOperation({ operationId: 'get_entries_after', summary: SUMMARY })
  @ENTRY_TYPE
  @ApiParam({ name: 'after_id', type: 'integer' })
  @LISTING
  listAfter(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.list(user, params, request);
  }

  @Get('before/:before_id')
  @ApiOperation({ operationId: 'get_entries_before', summary: SUMMARY })
  @ENTRY_TYPE
  @ApiParam({ name: 'before_id', type: 'integer' })
  @LISTING
  listBefore(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.list(user, params, request);
  }
}
