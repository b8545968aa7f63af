import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Received } from '../received/entities/received.entity';
import { Sended } from '../sended/entities/sended.entity';
import { SmsStop } from '../stop-list/entities/sms-stop.entity';
import { Phone } from '../phones/entities/phone.entity';
import { Setting } from '../users/entities/setting.entity';
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
  imports: [TypeOrmModule.forFeature([Received, Sended, SmsStop, Phone, Setting]), MediaModule],
  providers: [InboundRepository, InboundService, ScheduledRepository],
  exports: [InboundService],
})
export class InboundModule {}
