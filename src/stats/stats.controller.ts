import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { DayCount } from './local-days';
import { AppConfig } from '../config/configuration';
import { parseStatsParams } from './stats.params';
import { StatsService } from './stats.service';

const DATETIME = { type: 'string', example: '2024-02-01 00:00:00' } as const;

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

@ApiTags('stats')
@Controller('api')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly config: AppConfig,
  ) {}

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
    description: 'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD from the first second of that day',
  })
  @ApiQuery({
    name: 'end',
    required: true,
    schema: DATETIME,
    description:
      'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD up to the last second of that day; not before start',
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
    return this.stats.smsStatusStats(user.id, parseStatsParams(params, this.config.timeZone));
  }
}
