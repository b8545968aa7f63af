import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { parseUsageParams } from './usage.params';
import { Usage, UsageService } from './usage.service';

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

@ApiTags('stats')
@Controller('api')
export class UsageController {
  constructor(
    private readonly usage: UsageService,
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
  usageOf(@CurrentUser() user: AuthenticatedUser, @RequestParams() params: Params): Promise<Usage> {
    return this.usage.usageOf(user.id, parseUsageParams(params, this.config.timeZone));
  }
}
