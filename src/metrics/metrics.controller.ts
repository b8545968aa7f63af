import { Controller, Get, NotFoundException, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/auth/public.decorator';
import { METRICS_PATH } from '../common/http/operator-paths';
import { PlainExceptionFilter } from '../common/http/plain-exception.filter';
import { MetricsService } from './metrics.service';
import { MetricsTokenGuard } from './metrics-token.guard';

/**
 * The Prometheus text format, for scrapers rather than API clients: no API key, no envelope,
 * so the response is written here (`@Res()`).
 */
@ApiExcludeController()
@Public()
@UseGuards(MetricsTokenGuard)
@UseFilters(PlainExceptionFilter)
@Controller(METRICS_PATH)
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res() response: Response): Promise<void> {
    if (!this.metrics.enabled) {
      throw new NotFoundException();
    }
    const text = await this.metrics.scrape();
    // Written as it is: Express would reorder the content type's parameters.
    response.status(200).setHeader('Content-Type', this.metrics.contentType);
    response.end(text);
  }
}
