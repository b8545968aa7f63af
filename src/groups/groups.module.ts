import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Group } from './entities/group.entity';
import { EntriesModule } from '../entries/entries.module';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';

@Module({
  imports: [TypeOrmModule.forFeature([Group]), EntriesModule],
  controllers: [GroupsController],
  providers: [GroupsRepository, GroupsService],
})
export class GroupsModule {}
