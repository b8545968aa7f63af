import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EntriesModule } from '../entries/entries.module';
import { Sended } from '../sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../phone-groups/entities/phone-group.entity';
import { PhoneLimit } from './entities/phone-limit.entity';
import { Phone } from './entities/phone.entity';
import { PhonesController } from './phones.controller';
import { PhonesRepository } from './phones.repository';
import { PhonesService } from './phones.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([Phone, PhoneLimit, PhoneGroup, PhoneGroupPhone, Sended]),
    EntriesModule,
  ],
  controllers: [PhonesController],
  providers: [PhonesRepository, PhonesService],
  exports: [PhonesRepository],
})
export class PhonesModule {}
