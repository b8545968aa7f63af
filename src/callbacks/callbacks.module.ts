import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { MediaModule } from '../media/media.module';
import { ScheduledRepository } from '../scheduled/scheduled.repository';
import { CallbackBodyMiddleware } from './callback-body.middleware';
import { CallbacksController } from './callbacks.controller';
import { CallbacksRepository } from './callbacks.repository';
import { CallbacksService } from './callbacks.service';

/**
 * Provider callbacks over HTTP, and the `InboundSink` (`CallbacksService`) that the dispatch
 * worker hands to adapters that listen for receipts and messages themselves.
 */
@Module({
  // ScheduledRepository, for STOP replies, deletes medias with the messages it deletes.
  imports: [MediaModule],
  controllers: [CallbacksController],
  providers: [CallbacksRepository, CallbacksService, ScheduledRepository],
  exports: [CallbacksService],
})
export class CallbacksModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CallbackBodyMiddleware).forRoutes(CallbacksController);
  }
}
