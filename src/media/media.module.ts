import { Module } from '@nestjs/common';
import { MediaController } from './media.controller';
import { MediaStorage } from './media-storage';
import { MediaRepository } from './media.repository';

@Module({
  controllers: [MediaController],
  providers: [MediaStorage, MediaRepository],
  exports: [MediaStorage, MediaRepository],
})
export class MediaModule {}
