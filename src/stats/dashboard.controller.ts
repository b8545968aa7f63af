import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { DailyCounts } from './daily-counts';
import { ALERTS_LIMIT, QueueCounts } from './dashboard.repository';
import { DashboardService, ReliabilityAlert } from './dashboard.service';
import { parsePeriodParams, parseStatsParams } from './stats.params';

const DATETIME = { type: 'string', example: '2024-02-01 00:00:00' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;
const KIND_COUNTS = {
  delivered: { ...COUNT, description: 'Sent messages now delivered' },
  failed: { ...COUNT, description: 'Sent messages now failed' },
  unknown: { ...COUNT, description: 'Sent messages whose delivery is not known (yet)' },
  received: { ...COUNT, description: 'Received messages' },
};
const KINDS = ['delivered', 'failed', 'unknown', 'received'];

const START_QUERY = ApiQuery({
  name: 'start',
  required: true,
  schema: DATETIME,
  description: 'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD from the first second of that day',
});
const END_QUERY = ApiQuery({
  name: 'end',
  required: true,
  schema: DATETIME,
  description:
    'YYYY-MM-DD HH:MM:SS, or YYYY-MM-DD up to the last second of that day; not before start',
});

const DAILY_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'object',
    required: ['days', 'phones'],
    properties: {
      days: {
        type: 'array',
        description: 'Every day of the period, in order, zeros included',
        items: {
          type: 'object',
          required: ['day', ...KINDS],
          properties: {
            day: { type: 'string', description: 'Day in the service time zone, YYYY-MM-DD' },
            ...KIND_COUNTS,
          },
        },
      },
      phones: {
        type: 'array',
        description: 'The phones with messages in the period, by id_phone, with their totals',
        items: {
          type: 'object',
          required: ['id_phone', ...KINDS],
          properties: { id_phone: { type: 'integer' }, ...KIND_COUNTS },
        },
      },
    },
  },
  "The caller's messages per day of the period and per phone",
);

const QUEUE_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'object',
    required: ['due', 'to_come', 'sending'],
    properties: {
      due: { ...COUNT, description: 'Scheduled messages due and not yet taken by the dispatch' },
      to_come: { ...COUNT, description: 'Scheduled messages not yet due' },
      sending: {
        ...COUNT,
        description: 'Scheduled messages taken by the dispatch whose recipients are not all sent',
      },
    },
  },
  "The caller's scheduled messages by where the dispatch has them",
);

const RELIABILITY_RESPONSE = ApiEnvelopeResponse(
  {
    type: 'array',
    items: {
      type: 'object',
      required: ['id_phone', 'type', 'at', 'total', 'unreliable', 'rate'],
      properties: {
        id_phone: { type: 'integer' },
        type: { type: 'string', enum: ['failed', 'unknown'] },
        at: { ...DATETIME, description: 'When the check raised it, in the service time zone' },
        total: {
          ...COUNT,
          nullable: true,
          description:
            "Sent messages in the phone's window; null for alerts older than the figures",
        },
        unreliable: {
          ...COUNT,
          nullable: true,
          description: 'Of those, the ones of the type; null as total',
        },
        rate: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          nullable: true,
          description: 'unreliable / total, four decimals; null as total',
        },
      },
    },
  },
  `The phone reliability alerts of the period, newest first, at most ${ALERTS_LIMIT}`,
);

/** The console dashboard's statistics (docs/api.md#dashboard-statistics). */
@ApiTags('stats')
@Controller('api')
export class DashboardController {
  constructor(
    private readonly dashboard: DashboardService,
    private readonly config: AppConfig,
  ) {}

  @Get('stats/daily')
  @ApiOperation({
    operationId: 'get_daily_stats',
    summary:
      "get_daily_stats: the caller's messages per day of the service time zone (sent ones by " +
      'their status, and received ones) and per phone, over the days of the period.',
  })
  @START_QUERY
  @END_QUERY
  @ApiQuery({
    name: 'id_phone',
    required: false,
    type: 'integer',
    description: 'Only this phone of the caller; default all phones',
  })
  @DAILY_RESPONSE
  daily(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<DailyCounts> {
    return this.dashboard.daily(user.id, parseStatsParams(params, this.config.timeZone));
  }

  @Get('stats/queue')
  @ApiOperation({
    operationId: 'get_queue_stats',
    summary:
      "get_queue_stats: the caller's scheduled messages due and waiting for the dispatch, to " +
      'come, and being sent.',
  })
  @QUEUE_RESPONSE
  queue(@CurrentUser() user: AuthenticatedUser): Promise<QueueCounts> {
    return this.dashboard.queue(user.id);
  }

  @Get('stats/reliability')
  @ApiOperation({
    operationId: 'get_reliability_stats',
    summary:
      "get_reliability_stats: the reliability alerts of the caller's phones raised within the " +
      `period (bounds inclusive), newest first, at most ${ALERTS_LIMIT}.`,
  })
  @START_QUERY
  @END_QUERY
  @RELIABILITY_RESPONSE
  reliability(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<ReliabilityAlert[]> {
    return this.dashboard.reliability(user.id, parsePeriodParams(params, this.config.timeZone));
  }
}
