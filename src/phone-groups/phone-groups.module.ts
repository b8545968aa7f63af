import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EntriesModule } from '../entries/entries.module';
import { PhoneGroup, PhoneGroupPhone } from './entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import { PhoneGroupsController } from './phone-groups.controller';
import { PhoneGroupsRepository } from './phone-groups.repository';
import { PhoneGroupsService } from './phone-groups.service';

@Module({
  imports: [TypeOrmModule.forFeature([PhoneGroup, PhoneGroupPhone, Phone]), EntriesModule],
  controllers: [PhoneGroupsController],
  providers: [PhoneGroupsRepository, PhoneGroupsService],
})
export class PhoneGroupsModule {}
