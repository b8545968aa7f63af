import { Controller, Delete, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiNotFoundResponse,
  CONTACT_ENTRY,
  envelopeSchema,
} from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser } from '../common/http/request';
import { MAX_ENTRY_NAME } from '../common/params/entry-name';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { countryOf } from '../common/phone/phone-number';
import { Row } from '../entries/entries.repository';
import { ImportCounts } from './contacts-import';
import {
  MAX_DATA_BYTES,
  MAX_DATA_KEYS,
  parseContactIdParams,
  parseCreateContactParams,
  parseImportContactsParams,
  parseUpdateContactParams,
} from './contacts.params';
import { ContactsService } from './contacts.service';

const CONTACT_ID = ApiParam({
  name: 'id',
  type: 'integer',
  description: 'Id of one of your contacts',
});

const CONTACT_FIELDS: Record<string, SchemaObject> = {
  name: {
    type: 'string',
    maxLength: MAX_ENTRY_NAME,
    description: 'Trimmed; unique among your contacts, case-insensitively',
  },
  number: {
    type: 'string',
    example: '+33612345678',
    description:
      'A valid phone number, stored in E.164; national numbers are read in your setting ' +
      'default_phone_country',
  },
  data: {
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    example: { firstname: 'John' },
    description:
      `Template data: at most ${MAX_DATA_KEYS} keys of scalar values, ${MAX_DATA_BYTES} bytes ` +
      'JSON-encoded; bracket fields (`data[firstname]=John`), a JSON object, or a JSON object ' +
      'in a string. Listed as a JSON string.',
  },
};

/** The contact operations (docs/api.md#post_contact and the four after it). */
@ApiTags('contacts')
@Controller('api/contact')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Post()
  @ApiOperation({ operationId: 'post_contact', summary: 'post_contact: creates a contact.' })
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', required: ['name', 'number'], properties: CONTACT_FIELDS } })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new contact', 201)
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.contacts.create(user, parseCreateContactParams(params, countryOf(user)));
  }

  // Before the `:id` routes, which would take `import` for an id.
  @Post('import')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_import_contacts',
    summary:
      'post_import_contacts: creates or updates contacts from a CSV file or a JSON list, all ' +
      'or nothing; a line whose name is one of your contacts’ updates it.',
  })
  @API_BODY_TYPES
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        contacts_csv: {
          type: 'string',
          format: 'binary',
          description:
            'multipart only: a CSV whose header names the columns name and number (any case, ' +
            'any order); the other columns are data keys. Same size and row limits as numbers_csv.',
        },
        contacts: {
          type: 'array',
          description: 'Instead of a file: the contacts, each with the fields of post_contact',
          items: { type: 'object', required: ['name', 'number'], properties: CONTACT_FIELDS },
        },
      },
    },
  })
  @ApiEnvelopeResponse(
    {
      type: 'object',
      properties: { created: { type: 'integer' }, updated: { type: 'integer' } },
    },
    'How many contacts were created and updated',
  )
  @ApiResponse({
    status: 413,
    description: 'The file is too large (error 64), or has more lines than allowed (error 64)',
    schema: envelopeSchema({ type: 'object' }),
  })
  import(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<ImportCounts> {
    return this.contacts.import(user, parseImportContactsParams(params, request.files ?? []));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'get_contact',
    summary: 'get_contact: one of your contacts, as get_entries lists it.',
  })
  @CONTACT_ID
  @ApiEnvelopeResponse(CONTACT_ENTRY, 'The contact')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'contact')
  read(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.contacts.read(user, parseContactIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_contact',
    summary: 'post_update_contact: changes the fields sent; the others keep their value.',
  })
  @CONTACT_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: CONTACT_FIELDS } })
  @ApiEnvelopeResponse(CONTACT_ENTRY, 'The contact as it now is')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'contact')
  update(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.contacts.update(user, parseUpdateContactParams(params, countryOf(user)));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_contact',
    summary:
      'delete_contact: deletes a contact; it leaves its groups and the scheduled messages ' +
      'that name it.',
  })
  @CONTACT_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The contact was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'contact')
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.contacts.delete(user, parseContactIdParams(params));
  }
}
