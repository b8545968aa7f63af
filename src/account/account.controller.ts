import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { QuotaView } from '../users/quota';
import {
  DEFAULT_SETTINGS,
  numberPattern,
  SETTING_DEFINITIONS,
  SettingDefinition,
} from '../users/settings';
import { USER_VIEW_PROPERTIES } from '../users/user-view.schema';
import { UserView } from '../users/users.service';
import { parseSettingsParams } from './account.params';
import { AccountService } from './account.service';

/** A setting's schema in get_setting's answer and post_setting's body, from its definition. */
function settingSchema(definition: SettingDefinition): SchemaObject {
  const schema: SchemaObject = {
    type: 'string',
    description: `${definition.description} Allowed: ${definition.allowed}.`,
    example: definition.default,
  };
  switch (definition.type) {
    case 'flag':
      return { ...schema, enum: ['0', '1'] };
    case 'text':
      return {
        ...schema,
        minLength: definition.min_length ?? undefined,
        maxLength: definition.max_length ?? undefined,
      };
    case 'number':
      return { ...schema, pattern: numberPattern(definition) };
    case 'choice':
      return schema;
  }
}

/** Every setting, as listed and as changed. */
const SETTINGS: SchemaObject = {
  type: 'object',
  properties: Object.fromEntries(
    SETTING_DEFINITIONS.map((definition) => [definition.name, settingSchema(definition)]),
  ),
  example: DEFAULT_SETTINGS,
};

const NUMBER_OR_NULL: SchemaObject = { type: 'number', nullable: true };

/** get_setting_definitions' answer: every setting's meaning and allowed values. */
const DEFINITIONS: SchemaObject = {
  type: 'array',
  items: {
    type: 'object',
    required: [
      'name',
      'label',
      'description',
      'group',
      'type',
      'default',
      'allowed',
      'minimum',
      'maximum',
      'decimals',
      'min_length',
      'max_length',
      'choices',
    ],
    properties: {
      name: { type: 'string', example: 'mms' },
      label: { type: 'string', description: 'A short name for a form' },
      description: { type: 'string', description: 'What the setting changes' },
      group: { type: 'string', description: 'The heading the setting goes under' },
      type: {
        type: 'string',
        enum: ['flag', 'choice', 'number', 'text'],
        description:
          'flag: 0 or 1; choice: one of choices; number: a decimal from minimum to maximum ' +
          'with at most decimals digits after the point; text: min_length to max_length characters',
      },
      default: { type: 'string', description: 'The value of a user who never changed it' },
      allowed: { type: 'string', description: 'The allowed values in words' },
      minimum: { ...NUMBER_OR_NULL, description: 'number: the smallest value' },
      maximum: { ...NUMBER_OR_NULL, description: 'number: the largest value' },
      decimals: { ...NUMBER_OR_NULL, description: 'number: most digits after the point' },
      min_length: { ...NUMBER_OR_NULL, description: 'text: fewest characters' },
      max_length: { ...NUMBER_OR_NULL, description: 'text: most characters' },
      choices: {
        type: 'array',
        nullable: true,
        description: 'choice: the values, matched in any case',
        items: {
          type: 'object',
          required: ['value', 'label'],
          properties: { value: { type: 'string' }, label: { type: 'string' } },
        },
      },
    },
  },
};

/** The caller's quota, as it stands at the request (renewed if due). */
const QUOTA: SchemaObject = {
  type: 'object',
  nullable: true,
  description: 'The sending quota; null: the user sends without limit',
  properties: {
    credit: { type: 'integer', description: 'SMS segments per period' },
    additional: { type: 'integer', description: 'Segments on top of the credit' },
    consumed: {
      type: 'integer',
      description: 'Segments taken in the period, sends in flight included',
    },
    remaining: { type: 'integer', description: '0 once expired without renewal' },
    start_date: { type: 'string', description: 'In the service time zone' },
    expiration_date: { type: 'string', description: 'In the service time zone' },
    auto_renew: { type: 'boolean' },
  },
};
/** The caller's settings and account (docs/api.md#get_setting, #get_setting_definitions, #post_setting, #get_me). */
@ApiTags('account')
@Controller('api')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get('setting')
  @ApiOperation({
    operationId: 'get_setting',
    summary: 'get_setting: every setting of the caller as {name: value}, defaults included.',
  })
  @ApiEnvelopeResponse(SETTINGS, 'The settings, values as stored (strings)')
  settings(@CurrentUser() user: AuthenticatedUser): Record<string, string> {
    return this.account.settings(user);
  }

  @Get('setting/definitions')
  @ApiOperation({
    operationId: 'get_setting_definitions',
    summary:
      "get_setting_definitions: every setting's meaning, allowed values and default, as " +
      'post_setting checks them, in the order a form shows them.',
  })
  @ApiEnvelopeResponse(DEFINITIONS, 'The definitions')
  definitions(): readonly SettingDefinition[] {
    return this.account.definitions();
  }

  @Post('setting')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_setting',
    summary:
      'post_setting: changes one or several settings, sent as name=value fields; one bad field ' +
      'refuses them all.',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'multipart/form-data', 'application/json')
  @ApiBody({ schema: { ...SETTINGS, example: { templating: '0' } } })
  @ApiEnvelopeResponse(SETTINGS, 'Every setting after the change')
  changeSettings(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<Record<string, string>> {
    return this.account.changeSettings(user, parseSettingsParams(params));
  }

  @Get('me')
  @ApiOperation({
    operationId: 'get_me',
    summary: "get_me: the caller's account; the cheapest way to check an API key.",
  })
  @ApiEnvelopeResponse(
    {
      type: 'object',
      properties: { ...USER_VIEW_PROPERTIES, quota: QUOTA },
    },
    'The account',
  )
  me(@CurrentUser() user: AuthenticatedUser): Promise<UserView & { quota: QuotaView | null }> {
    return this.account.me(user);
  }
}
