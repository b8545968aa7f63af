import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AccountModule } from './account/account.module';
import { AdaptersApiModule } from './adapters/adapters-api.module';
import { AdaptersModule } from './adapters/adapters.module';
import { CallbacksModule } from './callbacks/callbacks.module';
import { ConditionalGroupsModule } from './conditional-groups/conditional-groups.module';
import { ApiKeyGuard } from './common/auth/api-key.guard';
import { ApiExceptionFilter } from './common/http/api-exception.filter';
import { BodyParserMiddleware } from './common/http/body-parser.middleware';
import { loggingModule } from './common/logging/logging.module';
import { SecretsModule } from './common/secrets/secrets.module';
import { AppConfigModule } from './config/app-config.module';
import { AppConfig } from './config/configuration';
import { DatabaseModule } from './database/database.module';
import { ContactsModule } from './contacts/contacts.module';
import { ConversationsModule } from './conversations/conversations.module';
import { DispatchModule } from './dispatch/dispatch.module';
import { EntriesModule } from './entries/entries.module';
import { GroupsModule } from './groups/groups.module';
import { HealthModule } from './health/health.module';
import { InvalidNumbersModule } from './invalid-numbers/invalid-numbers.module';
import { MediaModule } from './media/media.module';
import { MetricsModule } from './metrics/metrics.module';
import { PhoneGroupsModule } from './phone-groups/phone-groups.module';
import { PhonesModule } from './phones/phones.module';
import { ReceivedModule } from './received/received.module';
import { ScheduledModule } from './scheduled/scheduled.module';
import { SessionsModule } from './sessions/sessions.module';
import { SendedModule } from './sended/sended.module';
import { StatsModule } from './stats/stats.module';
import { StopListModule } from './stop-list/stop-list.module';
import { UsageModule } from './usage/usage.module';
import { UsersModule } from './users/users.module';
import { WebConsoleModule } from './web-console/web-console.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule implements NestModule {
  /** `config`: one built beforehand (tests, benchmarks); without it, read from the environment. */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config),
        loggingModule(),
        SecretsModule,
        DatabaseModule,
        AdaptersModule,
        UsersModule,
        SessionsModule,
        EntriesModule,
        PhonesModule,
        AdaptersApiModule,
        ScheduledModule,
        SendedModule,
        ReceivedModule,
        ContactsModule,
        ConversationsModule,
        GroupsModule,
        MediaModule,
        UsageModule,
        StatsModule,
        InvalidNumbersModule,
        StopListModule,
        AccountModule,
        ConditionalGroupsModule,
        PhoneGroupsModule,
        WebhooksModule,
        CallbacksModule,
        DispatchModule.forRoot(),
        HealthModule,
        MetricsModule,
        WebConsoleModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The API's parameters: provider callbacks read their bodies themselves
    // (CallbackBodyMiddleware), media are files. Named by inclusion: Nest's `exclude` matches
    // decoded paths, which a callback path holding `%0A` escaped.
    consumer.apply(BodyParserMiddleware).forRoutes('api/{*path}');
  }
}
