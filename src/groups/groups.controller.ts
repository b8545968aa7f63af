import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiNotFoundResponse,
  CONTACT_ENTRY,
  GROUP_ENTRY_PROPERTIES,
  idListSchema,
} from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { MAX_ENTRY_NAME } from '../common/params/entry-name';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { Row } from '../entries/entries.repository';
import {
  parseCreateGroupParams,
  parseGroupIdParams,
  parseUpdateGroupParams,
} from './groups.params';
import { GroupsService } from './groups.service';

const GROUP_ID = ApiParam({ name: 'id', type: 'integer', description: 'Id of one of your groups' });

const GROUP_FIELDS: Record<string, SchemaObject> = {
  name: {
    type: 'string',
    maxLength: MAX_ENTRY_NAME,
    description: 'Trimmed; unique among your groups, case-insensitively',
  },
  contacts: idListSchema(
    'Ids of your contacts (`contacts[]=3`, a JSON array, or a JSON array in a string; a ' +
      'single id is accepted). On update the list replaces the members; `contacts=` empties it.',
  ),
};

/** A group as get_entries lists it. */
const GROUP_ENTRY: SchemaObject = {
  type: 'object',
  required: ['id', 'id_user', 'name', 'created_at', 'updated_at', 'nb_contact', 'contacts'],
  properties: {
    ...GROUP_ENTRY_PROPERTIES,
    nb_contact: { type: 'integer' },
    contacts: { type: 'array', items: CONTACT_ENTRY },
  },
};

/** The group operations (docs/api.md#post_group and the three after it). */
@ApiTags('groups')
@Controller('api/group')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Post()
  @ApiOperation({
    operationId: 'post_group',
    summary: 'post_group: creates a group of your contacts.',
  })
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', required: ['name'], properties: GROUP_FIELDS } })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new group', 201)
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.groups.create(user, parseCreateGroupParams(params));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'get_group',
    summary: 'get_group: one of your groups with its contacts, as get_entries lists it.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse(GROUP_ENTRY, 'The group')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'group')
  read(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.read(user, parseGroupIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_group',
    summary:
      'post_update_group: changes the fields sent; `contacts` replaces the members when sent.',
  })
  @GROUP_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: GROUP_FIELDS } })
  @ApiEnvelopeResponse(GROUP_ENTRY, 'The group as it now is')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'group')
  update(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.update(user, parseUpdateGroupParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_group',
    summary:
      'delete_group: deletes a group; it leaves the scheduled messages that name it, its ' +
      'contacts stay.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The group was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'group')
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.groups.delete(user, parseGroupIdParams(params));
  }
}
