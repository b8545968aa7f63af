import { Module } from '@nestjs/common';
import { DispatchSignalModule } from '../common/dispatch-signal';
import { MediaModule } from '../media/media.module';
import { ScheduledController } from './scheduled.controller';
import { ScheduledRepository } from './scheduled.repository';
import { ScheduledService } from './scheduled.service';

@Module({
  imports: [MediaModule, DispatchSignalModule],
  controllers: [ScheduledController],
  providers: [ScheduledRepository, ScheduledService],
})
export class ScheduledModule {}
