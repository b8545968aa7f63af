import { Module } from '@nestjs/common';
import { PhonesController } from './phones.controller';
import { PhonesRepository } from './phones.repository';
import { PhonesService } from './phones.service';

@Module({
  controllers: [PhonesController],
  providers: [PhonesRepository, PhonesService],
  exports: [PhonesRepository],
})
export class PhonesModule {}
