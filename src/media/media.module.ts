import { Module } from '@nestjs/common';
import { MediaStorage } from './media-storage';

@Module({
  providers: [MediaStorage],
  exports: [MediaStorage],
})
export class MediaModule {}
