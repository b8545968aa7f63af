import { Module } from '@nestjs/common';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

/** get_sms_status_stats: the caller's sent messages per local day, phone and status. */
@Module({
  controllers: [StatsController],
  providers: [StatsRepository, StatsService],
})
export class StatsModule {}
