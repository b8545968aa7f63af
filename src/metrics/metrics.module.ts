import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsRepository } from './metrics.repository';
import { MetricsService } from './metrics.service';
import { MetricsTokenGuard } from './metrics-token.guard';

/**
 * Prometheus metrics: `GET /metrics`, and `MetricsService` for what is recorded as it happens:
 * HTTP requests (see measureRequests), sent entries and provider calls (the dispatch).
 */
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, MetricsRepository, MetricsTokenGuard],
  exports: [MetricsService],
})
export class MetricsModule {}
