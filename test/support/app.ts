import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
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

/** Starts the real application on a free port of 127.0.0.1. */
export async function startApp(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<TestApp> {
  const config = testConfig(database, env);
  const app = await createApp(config);
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
