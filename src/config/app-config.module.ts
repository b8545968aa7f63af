import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { resolve } from 'node:path';
import { AppConfig, configFromEnvironment } from './configuration';
import { processEnvironment } from './process-clock';

/** Where @nestjs/config keeps the validated configuration. */
const APP_CONFIG = 'smsgw';

/**
 * Provides the validated, typed `AppConfig` that every module injects. @nestjs/config reads
 * `.env`; the validation merges the real environment over it (with `TZ` as the process started
 * with it) and returns the whole configuration as one object under one key, which @nestjs/config
 * keeps for its ConfigService without copying anything into `process.env`.
 *
 * `forRoot(config)` provides a configuration built beforehand (tests, benchmarks).
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config?: AppConfig): DynamicModule {
    if (config) {
      return {
        module: AppConfigModule,
        providers: [{ provide: AppConfig, useValue: config }],
        exports: [AppConfig],
      };
    }
    return {
      module: AppConfigModule,
      imports: [
        ConfigModule.forRoot({
          envFilePath: resolve('.env'),
          validatePredefined: false,
          validate: (dotEnv: Record<string, string | undefined>) => ({
            [APP_CONFIG]: configFromEnvironment({ ...dotEnv, ...processEnvironment() }),
          }),
        }),
      ],
      providers: [
        {
          provide: AppConfig,
          inject: [ConfigService],
          useFactory: (config: ConfigService): AppConfig =>
            config.getOrThrow<AppConfig>(APP_CONFIG),
        },
      ],
      exports: [AppConfig],
    };
  }
}
