import { Module } from '@nestjs/common';
import { AdaptersController } from './adapters.controller';
import { AdaptersService } from './adapters.service';

/**
 * get_adapters, apart from AdaptersModule: the dispatch worker loads the adapters without the
 * HTTP face, and only the API serves their descriptors.
 */
@Module({
  controllers: [AdaptersController],
  providers: [AdaptersService],
})
export class AdaptersApiModule {}
