import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { Test } from '@nestjs/testing';
import { APP_OPTIONS, configureApp, createApp } from '../../src/app.factory';
import { AppModule } from '../../src/app.module';
import { EnvelopeExpressAdapter } from '../../src/common/http/envelope.adapter';
import { OUTBOUND_RESOLVER } from '../../src/common/net/outbound.module';
import { Resolver } from '../../src/common/net/outbound-policy';
import { secretCipher } from '../../src/common/secrets/secrets-key';
import { AppConfig } from '../../src/config/configuration';
import { validateEnvironment } from '../../src/config/env.validation';
import { openDataSource } from '../../src/database/data-source';
import { TestDatabase } from './databases';

export interface TestApp {
  app: NestExpressApplication;
  /** `http://127.0.0.1:<port>`: tests talk to the app over real HTTP. */
  url: string;
  dataSource: DataSource;
  config: AppConfig;
  close(): Promise<void>;
}

async function createResolvingApp(
  config: AppConfig,
  resolver: Resolver,
): Promise<NestExpressApplication> {
  const module = await Test.createTestingModule({ imports: [AppModule.forRoot(config)] })
    .overrideProvider(OUTBOUND_RESOLVER)
    .useValue(resolver)
    .compile();
  return configureApp(
    module.createNestApplication<NestExpressApplication>(new EnvelopeExpressAdapter(), APP_OPTIONS),
  );
}

/** The configuration of a test app: the test database, silent logs, extra variables on top. */
export function testConfig(database: TestDatabase, env: Record<string, string> = {}): AppConfig {
  return new AppConfig(
    validateEnvironment({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      WORKER: 'off',
      ...env,
    }),
  );
}

/**
 * The test database opened as the app opens it, with the same secrets key (SECRETS_KEY in `env`,
 * else the one kept in its DATA_DIR); not migrated.
 */
export function openTestDataSource(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<DataSource> {
  const config = testConfig(database, env);
  return openDataSource(config.database, secretCipher(config));
}

/**
 * Starts the real application on a free port of 127.0.0.1. `resolver` replaces the system's for
 * the outbound policy: a test makes a name resolve where it needs.
 */
export async function startApp(
  database: TestDatabase,
  env: Record<string, string> = {},
  resolver?: Resolver,
): Promise<TestApp> {
  const config = testConfig(database, env);
  const app = resolver ? await createResolvingApp(config, resolver) : await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    dataSource: app.get(DataSource),
    config,
    close: () => app.close(),
  };
}
