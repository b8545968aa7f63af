import { Module } from '@nestjs/common';
import { EntriesModule } from '../entries/entries.module';
import { MediaModule } from '../media/media.module';
import { ReceivedController } from './received.controller';
import { ReceivedRepository } from './received.repository';
import { ReceivedService } from './received.service';

@Module({
  imports: [EntriesModule, MediaModule],
  controllers: [ReceivedController],
  providers: [ReceivedRepository, ReceivedService],
})
export class ReceivedModule {}
