import { applyDecorators, Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { countryOf } from '../common/phone/phone-number';
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
const filter = (name: string, description: string, type = 'string') =>
  ApiQuery({ name, required: false, type, description });

/** The filters, each valid for some entry types only (docs/api.md#get_entries-filters). */
const QUERY_FILTERS = applyDecorators(
  filter(
    'status',
    'sended: unknown, delivered or failed; received: read or unread. Not for other types',
  ),
  filter('id_phone', 'sended, received, scheduled: sent or received through this phone', 'integer'),
  filter('destination', 'sended: to this number (normalised as everywhere)'),
  filter('origin', 'received: from this number (normalised as everywhere)'),
  filter('tag', 'sended, scheduled: with exactly this tag'),
  filter('originating_scheduled', 'sended: sent for this scheduled message', 'integer'),
  filter('at_from', 'sended, received, scheduled: `at` at or after, YYYY-MM-DD HH:MM:SS'),
  filter('at_to', 'sended, received, scheduled: `at` at or before, YYYY-MM-DD HH:MM:SS'),
  filter(
    'name',
    'contact, group, conditional_group, phone_group: names containing this text, case-insensitively',
  ),
  filter('number', 'contact: with this number (normalised as everywhere)'),
);

const SUMMARY =
  "get_entries: lists the caller's entries of one type, 25 per page, ordered by id. A cursor " +
  '(after_id, before_id) wins over page; giving both cursors is refused. Optional filters, ' +
  'ANDed, narrow the listing and are kept in next / prev; any other parameter but api_key is ' +
  "refused, naming it and the type's filters.";

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
  @QUERY_FILTERS
  @LISTING
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.entries.list(
      user.id,
      user.apiKey,
      parseEntriesParams(params, countryOf(user), this.config.timeZone),
      publicBaseUrl(request, this.config),
    );
  }

  @Get(':page')
  @ApiOperation({ operationId: 'get_entries_page', summary: SUMMARY })
  @ENTRY_TYPE
  @ApiParam({ name: 'page', type: 'integer' })
  @QUERY_FILTERS
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
  @QUERY_FILTERS
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
  @QUERY_FILTERS
  @LISTING
  listBefore(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.list(user, params, request);
  }
}
