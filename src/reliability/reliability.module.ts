import { Module } from '@nestjs/common';
import { ReliabilityRepository } from './reliability.repository';
import { ReliabilityService } from './reliability.service';

/** The phone reliability check, which the dispatch worker runs (docs/dispatch.md#phone-reliability). */
@Module({
  providers: [ReliabilityRepository, ReliabilityService],
  exports: [ReliabilityService],
})
export class ReliabilityModule {}
