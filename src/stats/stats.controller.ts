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
import { DayCount } from './local-days';
import { InvalidNumber, StatsService, Usage } from './stats.service';

const DATETIME = { type: 'string', example: '2024-02-01 00:00:00' } as const;

const USAGE_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'object',
    required: ['total', 'phones_volumes'],
    properties: {
      total: { type: 'integer', description: 'Sum over the phones', example: 42 },
      phones_volumes: {
        type: 'object',
        description: 'Sent messages per phone id, every phone of the caller (0 when none)',
        additionalProperties: { type: 'integer' },
        example: { '1': 40, '2': 2 },
      },
    },
  },
  'Sent messages per phone of the caller in the period',
);

const STATUS_STATS_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'array',
    items: {
      type: 'object',
      required: ['at_ymd', 'id_phone', 'status', 'nb'],
      properties: {
        at_ymd: { type: 'string', description: 'Day in the service time zone, YYYY-MM-DD' },
        id_phone: { type: 'integer' },
        status: { type: 'string', enum: ['unknown', 'delivered', 'failed'] },
        nb: { type: 'integer', description: 'Sent messages of that day, phone and status' },
      },
    },
  },
  'Non-zero counts ordered by day, phone, then status (unknown, delivered, failed)',
);

const INVALID_NUMBERS_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'array',
    items: {
      type: 'object',
      required: ['destination', 'total_sms_sent', 'failed_percentage', 'unknown_percentage'],
      properties: {
        destination: { type: 'string', example: '+33612345678' },
        total_sms_sent: { type: 'integer' },
        failed_percentage: { type: 'number', description: '0 to 100, two decimals' },
        unknown_percentage: { type: 'number', description: '0 to 100, two decimals' },
      },
    },
  },
  'Up to 25 destinations ordered by destination; next / prev links keep the thresholds',
);

const INVALID_NUMBERS_QUERY = applyDecorators(
  ApiQuery({
    name: 'volume',
    required: true,
    type: 'integer',
    description: 'Minimum number of messages sent to the number',
  }),
  ApiQuery({
    name: 'percent_failed',
    required: true,
    type: 'number',
    description: 'Minimum failed percentage, 0 to 100 (0 disables the criterion)',
  }),
  ApiQuery({
    name: 'percent_unknown',
    required: true,
    type: 'number',
    description: 'Minimum unknown-status percentage, 0 to 100 (0 disables the criterion)',
  }),
);

const INVALID_NUMBERS_SUMMARY =
  "get_invalid_numbers: the caller's destinations with at least `volume` messages whose " +
  'failed and unknown percentages (rounded to two decimals) reach the thresholds, 25 per page.';

@ApiTags('stats')
@Controller('api')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly config: AppConfig,
  ) {}

  @Get('usage')
  @ApiOperation({
    operationId: 'get_usage',
    summary:
      'get_usage: for each phone of the caller, the messages sent through it in the period ' +
      '(bounds inclusive, service time zone), optionally only those whose tag matches a LIKE pattern.',
  })
  @ApiQuery({ name: 'start', required: false, schema: DATETIME, description: 'Lower bound' })
  @ApiQuery({ name: 'end', required: false, schema: DATETIME, description: 'Upper bound' })
  @ApiQuery({
    name: 'tag',
    required: false,
    type: 'string',
    description: 'SQL LIKE pattern on the tag: `%` any text, `_` one character, `\\` escapes',
  })
  @USAGE_RESPONSE
  usage(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Usage> {
    return this.stats.usage(user.id, params);
  }

  @Get('stats/sms-status')
  @ApiOperation({
    operationId: 'get_sms_status_stats',
    summary:
      "get_sms_status_stats: the caller's sent messages per day of the service time zone, " +
      'phone and status within the period (bounds inclusive).',
  })
  @ApiQuery({
    name: 'start',
    required: true,
    schema: DATETIME,
    description: 'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD for midnight',
  })
  @ApiQuery({
    name: 'end',
    required: true,
    schema: DATETIME,
    description: 'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD for midnight; not before start',
  })
  @ApiQuery({
    name: 'id_phone',
    required: false,
    type: 'integer',
    description: 'Only this phone of the caller; default all phones',
  })
  @STATUS_STATS_RESPONSE
  smsStatusStats(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<DayCount[]> {
    return this.stats.smsStatusStats(user.id, params);
  }

  @Get('invalid_number')
  @ApiOperation({ operationId: 'get_invalid_numbers', summary: INVALID_NUMBERS_SUMMARY })
  @INVALID_NUMBERS_QUERY
  @ApiQuery({ name: 'page', required: false, type: 'integer', description: 'Page index, from 0' })
  @INVALID_NUMBERS_RESPONSE
  invalidNumbers(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<InvalidNumber>> {
    return this.stats.invalidNumbers(
      user.id,
      user.apiKey,
      params,
      publicBaseUrl(request, this.config),
    );
  }

  @Get('invalid_number/:page')
  @ApiOperation({ operationId: 'get_invalid_numbers_page', summary: INVALID_NUMBERS_SUMMARY })
  @ApiParam({ name: 'page', type: 'integer', description: 'Page index, from 0' })
  @INVALID_NUMBERS_QUERY
  @INVALID_NUMBERS_RESPONSE
  invalidNumbersPage(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<InvalidNumber>> {
    return this.invalidNumbers(user, params, request);
  }
}
