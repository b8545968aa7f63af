import { AddressInfo } from 'node:net';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { AppConfig } from '../../src/config/configuration';
import { validateEnvironment } from '../../src/config/env.validation';
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
