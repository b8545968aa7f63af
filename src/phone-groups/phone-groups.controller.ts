import { Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiNotFoundResponse,
  envelopeSchema,
  GROUP_ENTRY_PROPERTIES,
  idListSchema,
} from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { MAX_ENTRY_NAME } from '../common/params/entry-name';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { Row } from '../entries/entries.repository';
import {
  parseCreatePhoneGroupParams,
  parsePhoneGroupIdParams,
  parseUpdatePhoneGroupParams,
} from './phone-groups.params';
import { PhoneGroupsService } from './phone-groups.service';

const GROUP_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your phone groups',
});

const FIELDS: Record<string, SchemaObject> = {
  name: {
    type: 'string',
    maxLength: MAX_ENTRY_NAME,
    description: 'Trimmed; unique among your phone groups, case-insensitively',
  },
  phones: idListSchema(
    'Ids of your phones (`phones[]=3&phones[]=4`, a JSON array, or one id); duplicates count ' +
      'once. On update it replaces the list; an empty `phones=` empties it.',
  ),
};
const GROUP: SchemaObject = {
  type: 'object',
  required: ['id', 'id_user', 'name', 'created_at', 'updated_at', 'nb_phone', 'phones'],
  properties: {
    ...GROUP_ENTRY_PROPERTIES,
    nb_phone: { type: 'integer' },
    phones: {
      type: 'array',
      description: 'Its phones as get_entries lists phones, adapter data hidden as there',
      items: { type: 'object', additionalProperties: true },
    },
  },
};

/** The phone-group operations (docs/api.md#post_phone_group and those after it). */
@ApiTags('phone groups')
@Controller('api/phone_group')
export class PhoneGroupsController {
  constructor(private readonly groups: PhoneGroupsService) {}

  @Post()
  @ApiOperation({
    operationId: 'post_phone_group',
    summary:
      'post_phone_group: creates a phone group; a message scheduled with its id_phone_group is ' +
      'sent through one of its phones.',
  })
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', required: ['name'], properties: FIELDS } })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new phone group', 201)
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.groups.create(user, parseCreatePhoneGroupParams(params));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'get_phone_group',
    summary: 'get_phone_group: one phone group, as get_entries lists it.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse(GROUP, 'The phone group')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'phone group')
  findOne(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.findOne(user, parsePhoneGroupIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_phone_group',
    summary:
      'post_update_phone_group: changes the fields sent; the others keep their value, and ' +
      '`phones` replaces the whole list.',
  })
  @GROUP_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: FIELDS } })
  @ApiEnvelopeResponse(GROUP, 'The phone group as it now is')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'phone group')
  update(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.groups.update(user, parseUpdatePhoneGroupParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_phone_group',
    summary:
      'delete_phone_group: deletes a phone group that no pending message is to be sent ' +
      'through; its phones stay.',
  })
  @GROUP_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The phone group was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'phone group')
  @ApiResponse({
    status: 422,
    description: `Pending messages are to be sent through the group; the message says how many (error ${ErrorCode.CANNOT_DELETE})`,
    schema: envelopeSchema({ type: 'object' }),
  })
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.groups.delete(user, parsePhoneGroupIdParams(params));
  }
}
