import { Module } from '@nestjs/common';
import { TextPool } from './text-pool';

/**
 * The text pool's threads, shared by whatever renders templates or tests conditions in the
 * process: the dispatch and the conditional-group previews select contacts with the same pool.
 */
@Module({
  providers: [TextPool],
  exports: [TextPool],
})
export class TextModule {}
