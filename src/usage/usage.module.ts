import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sended } from '../sended/entities/sended.entity';
import { Phone } from '../phones/entities/phone.entity';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** get_usage: sent messages per phone of the caller in a period. */
@Module({
  imports: [TypeOrmModule.forFeature([Sended, Phone])],
  controllers: [UsageController],
  providers: [UsageRepository, UsageService],
})
export class UsageModule {}
