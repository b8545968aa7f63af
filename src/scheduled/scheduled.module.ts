import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConditionalGroup } from '../conditional-groups/entities/conditional-group.entity';
import { Contact } from '../contacts/entities/contact.entity';
import { Group } from '../groups/entities/group.entity';
import { Media, MediaScheduled } from '../media/entities/media.entity';
import { PhoneGroup } from '../phone-groups/entities/phone-group.entity';
import { Phone } from '../phones/entities/phone.entity';
import { SCHEDULED_ENTITIES } from './entities/scheduled.entity';
import { DispatchSignalModule } from '../common/dispatch-signal';
import { EntriesModule } from '../entries/entries.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { MediaModule } from '../media/media.module';
import { TextModule } from '../text/text.module';
import { ScheduledController } from './scheduled.controller';
import { ScheduledRepository } from './scheduled.repository';
import { ScheduledService } from './scheduled.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      ...SCHEDULED_ENTITIES,
      Contact,
      Group,
      ConditionalGroup,
      Media,
      MediaScheduled,
      Phone,
      PhoneGroup,
    ]),
    MediaModule,
    DispatchSignalModule,
    EntriesModule,
    IdempotencyModule,
    TextModule,
  ],
  controllers: [ScheduledController],
  providers: [ScheduledRepository, ScheduledService],
})
export class ScheduledModule {}
