import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { QuotaView } from '../users/quota';
import { DEFAULT_SETTINGS, RELIABILITY_TYPES, ReliabilityType } from '../users/settings';
import { UserView } from '../users/users.service';
import { parseSettingsParams } from './account.params';
import { AccountService } from './account.service';

const FLAG: SchemaObject = { type: 'string', enum: ['0', '1'] };

/** Every setting, as listed and as changed. */
const SETTINGS: SchemaObject = {
  type: 'object',
  properties: {
    mms: { ...FLAG, description: 'MMS may be sent' },
    phone_limit: { ...FLAG, description: "The dispatch respects phones' sending limits" },
    phone_priority: { ...FLAG, description: 'The dispatch prefers phones of higher priority' },
    templating: { ...FLAG, description: 'Texts are rendered as templates' },
    smsstop: { ...FLAG, description: 'Numbers of the STOP list are skipped' },
    smsstop_respond: { ...FLAG, description: 'A STOP reply is answered with smsstop_response' },
    smsstop_response: { type: 'string', minLength: 1, maxLength: 1000 },
    force_gsm_alphabet: { ...FLAG, description: 'Texts are converted to the GSM alphabet' },
    webhook: FLAG,
    default_phone_country: {
      type: 'string',
      description: 'ISO 3166 alpha-2 code (any case, stored lowercase) or empty',
      example: 'fr',
    },
    alert_quota_limit_close: {
      type: 'string',
      pattern: '^(?:0(?:\\.\\d{1,4})?|1(?:\\.0{1,4})?)$',
      description: 'Share of the quota consumed that sends a `quota` event `close`; 0: none',
      example: '0.9',
    },
    alert_quota_limit_reached: {
      ...FLAG,
      description: 'A `quota` event `reached` is sent once nothing remains',
    },
    ...Object.fromEntries(RELIABILITY_TYPES.flatMap((type) => reliabilitySettings(type))),
  },
  example: DEFAULT_SETTINGS,
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
/** The settings of the reliability check of one type (docs/dispatch.md#phone-reliability). */
function reliabilitySettings(type: ReliabilityType): Array<[string, SchemaObject]> {
  const name = `phone_reliability_${type}`;
  const whole: SchemaObject = { type: 'string', pattern: '^[0-9]+$' };
  return [
    [name, { ...FLAG, description: `Phones' ${type} rates are checked` }],
    [
      `${name}_rate_limit`,
      { type: 'string', description: 'Percentage, 0 to 100, that raises an alert', example: '10' },
    ],
    [`${name}_volume`, { ...whole, description: 'Fewest messages in the window, at least 1' }],
    [`${name}_period`, { ...whole, description: 'Minutes the window goes back, at least 1' }],
    [
      `${name}_grace_period`,
      { ...whole, description: 'Latest minutes left out, less than the period' },
    ],
    [`${name}_webhook`, { ...FLAG, description: 'An alert sends a phone_reliability event' }],
    [`${name}_auto_disable`, { ...FLAG, description: 'An alert disables the phone' }],
  ];
}

/** The caller's settings and account (docs/api.md#get_setting, #post_setting, #get_me). */
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
      properties: {
        id: { type: 'integer' },
        email: { type: 'string' },
        status: { type: 'string', enum: ['active'] },
        admin: { type: 'boolean' },
        created_at: { type: 'string', description: 'In the service time zone' },
        quota: QUOTA,
      },
    },
    'The account',
  )
  me(@CurrentUser() user: AuthenticatedUser): Promise<UserView & { quota: QuotaView | null }> {
    return this.account.me(user);
  }
}
