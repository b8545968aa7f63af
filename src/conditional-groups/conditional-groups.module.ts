import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConditionalGroup } from './entities/conditional-group.entity';
import { EntriesModule } from '../entries/entries.module';
import { TextModule } from '../text/text.module';
import { ConditionalGroupsController } from './conditional-groups.controller';
import { ConditionalGroupsRepository } from './conditional-groups.repository';
import { ConditionalGroupsService } from './conditional-groups.service';

@Module({
  imports: [TypeOrmModule.forFeature([ConditionalGroup]), EntriesModule, TextModule],
  controllers: [ConditionalGroupsController],
  providers: [ConditionalGroupsRepository, ConditionalGroupsService],
})
export class ConditionalGroupsModule {}
