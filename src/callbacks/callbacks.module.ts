import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { InboundModule } from '../inbound/inbound.module';
import { CallbackBodyMiddleware } from './callback-body.middleware';
import { CallbacksController } from './callbacks.controller';
import { CallbacksService } from './callbacks.service';

/** Provider callbacks over HTTP; what they report is stored by InboundModule. */
@Module({
  imports: [InboundModule],
  controllers: [CallbacksController],
  providers: [CallbacksService],
})
export class CallbacksModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CallbackBodyMiddleware).forRoutes(CallbacksController);
  }
}
