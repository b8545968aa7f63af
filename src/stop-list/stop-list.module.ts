import { Module } from '@nestjs/common';
import { StopListController } from './stop-list.controller';
import { StopListRepository } from './stop-list.repository';
import { StopListService } from './stop-list.service';

@Module({
  controllers: [StopListController],
  providers: [StopListRepository, StopListService],
})
export class StopListModule {}
