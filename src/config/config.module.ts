import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './configuration';

/** Provides the validated `AppConfig`; `forRoot(config)` lets tests and the CLI pass their own. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useFactory: () => config ?? loadConfig() }],
      exports: [AppConfig],
    };
  }
}
