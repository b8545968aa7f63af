import { applyDecorators, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { PhoneStatus } from '../adapters/adapter';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ErrorCode } from '../common/errors/api-error';
import {
  API_BODY_TYPES,
  ApiEnvelopeResponse,
  ApiNotFoundResponse,
  envelopeSchema,
} from '../common/http/openapi';
import { CallbackUrls } from '../common/http/callback-urls';
import { AuthenticatedUser } from '../common/http/request';
import { Row } from '../entries/entries.repository';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import {
  MAX_LIMITS,
  MAX_NAME_LENGTH,
  MAX_RATE,
  MIN_RATE,
  parseCreatePhoneParams,
  parseForceStatusParams,
  parsePhoneIdParams,
  parseUpdatePhoneParams,
} from './phones.params';
import { PhonesService } from './phones.service';

const PHONE_ID = ApiParam({ name: 'id', type: 'integer', description: 'Id of one of your phones' });
const STATUSES: PhoneStatus[] = [
  'available',
  'unavailable',
  'no_credit',
  'limit_reached',
  'disabled',
];

const PHONE_FIELDS: Record<string, SchemaObject> = {
  name: {
    type: 'string',
    maxLength: MAX_NAME_LENGTH,
    description: 'Unique among your phones',
  },
  // The adapters' ids and data fields come from their descriptors (phones.openapi.ts).
  adapter: { type: 'string' },
  adapter_data: { type: 'object' },
  priority: {
    type: 'integer',
    description: 'Higher is chosen first when the setting phone_priority is on; negative is 0',
    default: 0,
  },
  rate: {
    type: 'number',
    nullable: true,
    minimum: MIN_RATE,
    maximum: MAX_RATE,
    description:
      'Messages per second at most, decimal (0.5: one every two seconds); empty or null for ' +
      'none. On update, left out keeps the stored rate',
    example: 0.5,
  },
  limits: {
    type: 'array',
    maxItems: MAX_LIMITS,
    description:
      'Sending limits (`limits[0][volume]=100&limits[0][startpoint]=today`). Elements without ' +
      'volume or startpoint, or with a startpoint that is not a PHP relative date, are dropped.',
    items: {
      type: 'object',
      properties: {
        volume: { type: 'integer', minimum: 1, description: 'Most SMS sent in the window' },
        startpoint: {
          type: 'string',
          description:
            'Start of the window, a PHP relative date evaluated at each check in the service ' +
            'time zone: `today`, `-24 hours`, `this week midnight`, `this month midnight` (the ' +
            'first of the month at 00:00)…',
          example: 'this week midnight',
        },
      },
    },
  },
};

const CALLBACK_URLS: SchemaObject = {
  type: 'object',
  nullable: true,
  required: ['status', 'reception'],
  properties: { status: { type: 'string' }, reception: { type: 'string' } },
};

/** A phone as get_phone answers it: as get_entries lists it, with what an editor may see. */
const PHONE: SchemaObject = {
  type: 'object',
  required: [
    'id',
    'id_user',
    'name',
    'adapter',
    'adapter_data',
    'priority',
    'status',
    'created_at',
    'updated_at',
    'rate',
    'limits',
    'callback_urls',
    'secrets_set',
    'unreadable_secrets',
    'adapter_data_error',
  ],
  properties: {
    id: { type: 'integer' },
    id_user: { type: 'integer' },
    name: { type: 'string' },
    adapter: { type: 'string' },
    adapter_data: {
      type: 'object',
      additionalProperties: { type: 'string' },
      example: { url: 'http://kannel.example:13013/cgi-bin/sendsms', from: '+33612345678' },
      description:
        "The stored value of each of the adapter's non-secret fields that has one, as an " +
        'object (listings give a JSON text, or nothing for adapters that hide their data). ' +
        'Never a secret',
    },
    priority: { type: 'integer' },
    status: { type: 'string', enum: STATUSES },
    created_at: { type: 'string', example: '2030-01-31 08:30:00' },
    updated_at: { type: 'string', nullable: true },
    rate: { type: 'number', nullable: true, example: 0.5 },
    limits: {
      type: 'array',
      items: {
        type: 'object',
        required: ['volume', 'startpoint'],
        properties: { volume: { type: 'integer' }, startpoint: { type: 'string' } },
      },
    },
    callback_urls: { ...CALLBACK_URLS, description: 'Null without PUBLIC_URL' },
    secrets_set: {
      type: 'array',
      items: { type: 'string' },
      example: ['password'],
      description: 'The secret fields with a stored value (the values are never shown)',
    },
    unreadable_secrets: {
      type: 'array',
      items: { type: 'string' },
      description:
        'The secret fields whose stored value cannot be decrypted (the secrets key changed): ' +
        'they must be sent again, and the phone cannot send until then',
    },
    adapter_data_error: {
      type: 'string',
      nullable: true,
      description:
        'Null, or what is wrong with the stored adapter data (unreadable secrets, an adapter ' +
        'this server no longer has) and what to do',
    },
  },
};

function refused(code: ErrorCode, text: string) {
  return ApiResponse({
    status: 422,
    description: `${text} (error ${code})`,
    schema: envelopeSchema({ type: 'object' }),
  });
}

const STATUS_RESPONSE = applyDecorators(
  ApiEnvelopeResponse({ type: 'string', enum: STATUSES }, 'The phone status now stored'),
  ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'phone'),
);

/** The phone operations (docs/api.md#post_phone and those after it). */
@ApiTags('phones')
@Controller('api/phone')
export class PhonesController {
  constructor(private readonly phones: PhonesService) {}

  @Post()
  @ApiOperation({
    operationId: 'post_phone',
    summary:
      'post_phone: creates a phone once its adapter accepted the data; the new phone is available.',
  })
  @API_BODY_TYPES
  @ApiBody({
    schema: { type: 'object', required: ['name', 'adapter'], properties: PHONE_FIELDS },
  })
  @ApiEnvelopeResponse({ type: 'integer' }, 'The id of the new phone', 201)
  @refused(ErrorCode.CANNOT_CREATE, "The adapter's test refused the data")
  create(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<number> {
    return this.phones.create(user, parseCreatePhoneParams(params, this.phones.adapterIds()));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'get_phone',
    summary:
      'get_phone: one of your phones as get_entries lists it, with the stored values of its ' +
      "adapter's non-secret fields and the names of the secret ones that are set; never a " +
      "secret's value.",
  })
  @PHONE_ID
  @ApiEnvelopeResponse(PHONE, 'The phone')
  @ApiNotFoundResponse(ErrorCode.INVALID_PARAMETER, 'phone')
  read(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Row> {
    return this.phones.read(user, parsePhoneIdParams(params));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_phone',
    summary:
      'post_update_phone: changes the fields sent; the others, limits included, keep their ' +
      'value. `limits` replaces every limit (an empty `limits=` removes them). With the same ' +
      'adapter, a required or secret adapter_data field left out keeps its stored value.',
  })
  @PHONE_ID
  @API_BODY_TYPES
  @ApiBody({ schema: { type: 'object', properties: PHONE_FIELDS } })
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The phone was updated')
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'phone')
  @refused(ErrorCode.CANNOT_UPDATE, "The adapter's test refused the data")
  update(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.phones.update(user, parseUpdatePhoneParams(params));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'delete_phone',
    summary:
      'delete_phone: deletes a phone with its limits and phone-group memberships; its messages ' +
      'stay, without a phone.',
  })
  @PHONE_ID
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The phone was deleted')
  @ApiNotFoundResponse(ErrorCode.CANNOT_DELETE, 'phone')
  delete(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<true> {
    return this.phones.delete(user, parsePhoneIdParams(params));
  }

  @Post(':id/callback-token')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_phone_callback_token',
    summary:
      "post_phone_callback_token: gives the phone a new callback token; the old one's URLs stop " +
      'working at once.',
  })
  @PHONE_ID
  @ApiEnvelopeResponse(CALLBACK_URLS, "The phone's new callback URLs; null without PUBLIC_URL")
  @ApiNotFoundResponse(ErrorCode.CANNOT_UPDATE, 'phone')
  rotateCallbackToken(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<CallbackUrls | null> {
    return this.phones.rotateCallbackToken(user, parsePhoneIdParams(params));
  }

  @Post(':id/status')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_update_phone_status',
    summary:
      'post_update_phone_status: re-checks the status of a phone that is not disabled: ' +
      'limit_reached when the setting phone_limit is on and a limit is used up, else what the ' +
      'adapter reports.',
  })
  @PHONE_ID
  @STATUS_RESPONSE
  @refused(
    ErrorCode.CANNOT_UPDATE,
    'The phone is disabled: re-enable it with post_change_phone_status',
  )
  checkStatus(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<PhoneStatus> {
    return this.phones.checkStatus(user, parsePhoneIdParams(params));
  }

  @Post(':id/status/force')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_change_phone_status',
    summary: 'post_change_phone_status: sets a phone available or disabled.',
  })
  @PHONE_ID
  @API_BODY_TYPES
  @ApiBody({
    schema: {
      type: 'object',
      required: ['status'],
      properties: { status: { type: 'string', enum: ['available', 'disabled'] } },
    },
  })
  @STATUS_RESPONSE
  forceStatus(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<PhoneStatus> {
    return this.phones.forceStatus(user, parseForceStatusParams(params));
  }
}
