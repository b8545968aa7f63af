import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConditionalGroup } from '../conditional-groups/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group, GroupContact } from '../groups/entities/group.entity';
import { MEDIA_ENTITIES } from '../media/entities/media.entity';
import { Received } from '../received/entities/received.entity';
import { Sended } from '../sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../phone-groups/entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import { SCHEDULED_ENTITIES } from '../scheduled/entities/scheduled.entity';
import { EntriesController } from './entries.controller';
import { EntriesRepository } from './entries.repository';
import { EntriesService } from './entries.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      Sended,
      Received,
      ...SCHEDULED_ENTITIES,
      Contact,
      Group,
      GroupContact,
      ConditionalGroup,
      ...MEDIA_ENTITIES,
      Phone,
      PhoneGroup,
      PhoneGroupPhone,
    ]),
  ],
  controllers: [EntriesController],
  providers: [EntriesRepository, EntriesService],
  exports: [EntriesService],
})
export class EntriesModule {}
