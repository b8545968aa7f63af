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
import { parseInvalidNumbersParams } from './invalid-numbers.params';
import { InvalidNumber, InvalidNumbersService } from './invalid-numbers.service';

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
export class InvalidNumbersController {
  constructor(
    private readonly invalidNumbers: InvalidNumbersService,
    private readonly config: AppConfig,
  ) {}

  @Get('invalid_number')
  @ApiOperation({ operationId: 'get_invalid_numbers', summary: INVALID_NUMBERS_SUMMARY })
  @INVALID_NUMBERS_QUERY
  @ApiQuery({ name: 'page', required: false, type: 'integer', description: 'Page index, from 0' })
  @INVALID_NUMBERS_RESPONSE
  list(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<InvalidNumber>> {
    return this.invalidNumbers.list(
      user.id,
      user.apiKey,
      parseInvalidNumbersParams(params),
      publicBaseUrl(request, this.config),
    );
  }

  @Get('invalid_number/:page')
  @ApiOperation({ operationId: 'get_invalid_numbers_page', summary: INVALID_NUMBERS_SUMMARY })
  @ApiParam({ name: 'page', type: 'integer', description: 'Page index, from 0' })
  @INVALID_NUMBERS_QUERY
  @INVALID_NUMBERS_RESPONSE
  listPage(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
  ): Promise<Paged<InvalidNumber>> {
    return this.list(user, params, request);
  }
}
