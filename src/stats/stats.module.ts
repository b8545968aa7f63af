import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sended } from '../sended/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';
import { DashboardController } from './dashboard.controller';
import { DashboardRepository } from './dashboard.repository';
import { DashboardService } from './dashboard.service';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

/**
 * get_sms_status_stats: the caller's sent messages per local day, phone and status; and the
 * console dashboard's get_daily_stats, get_queue_stats and get_reliability_stats.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Sended, Phone])],
  controllers: [StatsController, DashboardController],
  providers: [StatsRepository, StatsService, DashboardRepository, DashboardService],
})
export class StatsModule {}
