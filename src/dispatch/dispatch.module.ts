import { DynamicModule, Module } from '@nestjs/common';
import { DispatchSignalModule } from '../common/dispatch-signal';
import { WorkerHeartbeatModule } from '../common/worker-heartbeat';
import { AppConfig } from '../config/configuration';
import { InboundModule } from '../inbound/inbound.module';
import { InboundService } from '../inbound/inbound.service';
import { MediaModule } from '../media/media.module';
import { MetricsModule } from '../metrics/metrics.module';
import { ReliabilityModule } from '../reliability/reliability.module';
import { TextModule } from '../text/text.module';
import { WebhookDeliveryModule } from '../webhook-delivery/webhook-delivery.module';
import { ClaimsRepository } from './claims.repository';
import { ClaimsService } from './claims.service';
import { ExpansionRepository } from './expansion.repository';
import { ExpansionService } from './expansion.service';
import { MediaCollector } from './media-collector';
import { QuotaAccountingRepository } from './quota-accounting.repository';
import { QuotaAccountingService } from './quota-accounting.service';
import { RecordingRepository } from './recording.repository';
import { RecordingService } from './recording.service';
import { RenderingRepository } from './rendering.repository';
import { RenderingService } from './rendering.service';
import { SenderService } from './sender.service';
import { WorkerRepository } from './worker.repository';
import { INBOUND_SINK, START_WORKER, WorkerService } from './worker.service';

/** The dispatch worker: due messages to providers to `sended` entries (docs/dispatch.md). */
@Module({})
export class DispatchModule {
  /**
   * @param workerProcess true in the worker process, which always dispatches; the API process
   * dispatches when `WORKER=inline`.
   */
  static forRoot(workerProcess = false): DynamicModule {
    return {
      module: DispatchModule,
      imports: [
        InboundModule,
        MediaModule,
        DispatchSignalModule,
        WorkerHeartbeatModule,
        MetricsModule,
        TextModule,
        WebhookDeliveryModule,
        ReliabilityModule,
      ],
      providers: [
        // The stages, in the order a message goes through them (docs/dispatch.md#stages).
        ExpansionRepository,
        ExpansionService,
        RenderingRepository,
        RenderingService,
        ClaimsRepository,
        ClaimsService,
        SenderService,
        RecordingRepository,
        RecordingService,
        QuotaAccountingRepository,
        QuotaAccountingService,
        WorkerRepository,
        WorkerService,
        MediaCollector,
        {
          provide: START_WORKER,
          inject: [AppConfig],
          useFactory: (config: AppConfig) => workerProcess || config.worker === 'inline',
        },
        // What listening adapters push (SMPP receipts, polled messages) is stored as callbacks are.
        { provide: INBOUND_SINK, useExisting: InboundService },
      ],
      exports: [WorkerService],
    };
  }
}
