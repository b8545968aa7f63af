import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { ScheduledRepository } from '../scheduled/scheduled.repository';
import { InboundRepository } from './inbound.repository';
import { InboundService } from './inbound.service';

/**
 * Where receipts, received messages and STOPs are stored, whoever reports them: the provider
 * callbacks over HTTP (CallbacksModule) and the adapters that listen themselves, which the
 * dispatch worker runs (DispatchModule). No controller: a worker process has no HTTP face.
 */
@Module({
  // ScheduledRepository schedules STOP replies; it needs MediaModule's repository.
  imports: [MediaModule],
  providers: [InboundRepository, InboundService, ScheduledRepository],
  exports: [InboundService],
})
export class InboundModule {}
