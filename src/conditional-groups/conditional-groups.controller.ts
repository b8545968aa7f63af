import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import { Paged } from '../common/http/envelope';
import { publicBaseUrl } from '../common/http/links';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiNotFoundResponse,
  CONTACT_ENTRY,
} from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { MAX_ENTRY_NAME } from '../common/params/entry-name';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { Row } from '../entries/entries.repository';
import { MAX_CONDITION_LENGTH } from '../text/condition';
import {
  parseConditionalGroupIdParams,
  parseCreateConditionalGroupParams,
  parseGroupContactsParams,
  parsePreviewParams,
  parseUpdateConditionalGroupParams,
} from './conditional-groups.params';
import { ConditionalGroupsService } from './conditional-groups.service';

const GROUP_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your conditional groups',
});
const PAGE = ApiQuery({
  name: 'page',
  required: false,
  type: 'integer',
  description: 'Page index, from 0; 25 contacts per page',
});

const CONDITION: SchemaObject = {
  type: 'string',
  maxLength: MAX_CONDITION_LENGTH,
  description:
    "A Symfony ExpressionLanguage expression over `contact` (the contact's data) and " +
    '`contact_metas` (its id, name, number, created_at, updated_at), with the functions exists, ' +
    'is_birthday, lower, upper, substr, strlen, abs, date, date_from_format, intval, boolval, ' +
    'count and constant',
  example: "contact.gender == 'female' && contact.vip == 1",
};
const FIELDS: Record<string, SchemaObject> = {
  name: {
    type: 'string',
    maxLength: MAX_ENTRY_NAME,
    description: 'Trimmed; unique among your conditional groups, case-insensitively',
  },
  condition: CONDITION,
};
const GROUP: SchemaObject = {
  type: 'object',
  required: ['id', 'id_user', 'name', 'condition', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    id_user: { type: 'integer' },
    name: { type: 'string' },
    condition: { type: 'string', nullable: true },
    created_at: { type: 'string', example: '2030-01-31 08:30:00' },
    updated_at: { type: 'string', nullable: true },
  },
};
const CONTACTS = ApiEnvelopeResponse(
  { type: 'array', items: CONTACT_ENTRY },
  'Up to 25 of your contacts the condition selects now, by id, as get_entries lists contacts; ' +
    'next / prev links to the pages after and before',
);

/** The conditional-group operations (docs/api.md#post_conditional_group and those after it). */
@ApiTags('conditional groups')
@Controller('api/conditional_group')
export class ConditionalGroupsController {
  constructor(
    private readonly groups: ConditionalGroupsService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @ApiOperation({
    operationId: 'post_conditional_group',
    summary:
      'post_conditional_group: creates a conditional group, whose contacts are those its ' +
      'condition selects when a message is sent.',
  })
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', required: ['name', 'condition'], properties: FIELDS } })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new conditional group', 201)
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.groups.create(user, parseCreateConditionalGroupParams(params));
  }

  // Before `:id`, which would take `preview` for an id.
  @Get('preview')
  @ApiOperation({
    operationId: 'get_conditional_group_preview',
    summary:
      'get_conditional_group_preview: your contacts a condition selects now, exactly as the ' +
      'dispatch would select them, 25 per page.',
  })
  @ApiQuery({ name: 'condition', required: true, schema: CONDITION })
  @PAGE
  @CONTACTS
  preview(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.groups.preview(
      user,
      parsePreviewParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Get(':id/contacts')
  @ApiOperation({
    operationId: 'get_conditional_group_contacts',
    summary:
      "get_conditional_group_contacts: your contacts the group's condition selects now, " +
      'exactly as the dispatch would select them, 25 per page.',
  })
  @GROUP_ID
  @PAGE
  @CONTACTS
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'conditional group')
  contacts(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<Row>> {
    return this.groups.contacts(
      user,
      parseGroupContactsParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'get_conditional_group',
    summary: 'get_conditional_group: one conditional group, as get_entries lists it.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse(GROUP, 'The conditional group')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'conditional group')
  findOne(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.findOne(user, parseConditionalGroupIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_conditional_group',
    summary: 'post_update_conditional_group: changes the fields sent; the others keep their value.',
  })
  @GROUP_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: FIELDS } })
  @ApiEnvelopeResponse(GROUP, 'The conditional group as it now is')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'conditional group')
  update(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.update(user, parseUpdateConditionalGroupParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_conditional_group',
    summary:
      'delete_conditional_group: deletes a conditional group; pending scheduled messages no ' +
      'longer send to it.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The conditional group was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'conditional group')
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.groups.delete(user, parseConditionalGroupIdParams(params));
  }
}
