import { Module } from '@nestjs/common';
import { EntriesController } from './entries.controller';
import { EntriesRepository } from './entries.repository';
import { EntriesService } from './entries.service';

@Module({
  controllers: [EntriesController],
  providers: [EntriesRepository, EntriesService],
})
export class EntriesModule {}
