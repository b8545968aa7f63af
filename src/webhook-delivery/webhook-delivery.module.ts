import { Module } from '@nestjs/common';
import { OutboundModule } from '../common/net/outbound.module';
import { MetricsModule } from '../metrics/metrics.module';
import { WebhookDeliverer } from './webhook-deliverer.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';

/** Delivers webhook events; the dispatch worker runs it (docs/api.md#webhook-deliveries). */
@Module({
  imports: [OutboundModule, MetricsModule],
  providers: [WebhookDeliveryRepository, WebhookDeliverer],
  exports: [WebhookDeliverer],
})
export class WebhookDeliveryModule {}
