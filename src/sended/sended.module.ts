import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { MediaModule } from '../media/media.module';
import { SendedController } from './sended.controller';
import { SendedRepository } from './sended.repository';
import { SendedService } from './sended.service';

@Module({
  imports: [EntriesModule, MediaModule],
  controllers: [SendedController],
  providers: [SendedRepository, SendedService],
})
export class SendedModule {}
