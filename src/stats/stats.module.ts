import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sended } from '../messages/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';
import { StatsController } from './stats.controller';
import { StatsRepository } from './stats.repository';
import { StatsService } from './stats.service';

/** get_sms_status_stats: the caller's sent messages per local day, phone and status. */
@Module({
  imports: [TypeOrmModule.forFeature([Sended, Phone])],
  controllers: [StatsController],
  providers: [StatsRepository, StatsService],
})
export class StatsModule {}
