import { Module } from '@nestjs/common';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** get_usage: sent messages per phone of the caller in a period. */
@Module({
  controllers: [UsageController],
  providers: [UsageRepository, UsageService],
})
export class UsageModule {}
