import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { ScheduledController } from './scheduled.controller';
import { ScheduledRepository } from './scheduled.repository';
import { ScheduledService } from './scheduled.service';

@Module({
  imports: [MediaModule],
  controllers: [ScheduledController],
  providers: [ScheduledRepository, ScheduledService],
})
export class ScheduledModule {}
