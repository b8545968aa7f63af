import { Module } from '@nestjs/common';
import { MediaController } from './media.controller';
import { MediaStorage } from './media-storage';

@Module({
  controllers: [MediaController],
  providers: [MediaStorage],
  exports: [MediaStorage],
})
export class MediaModule {}
