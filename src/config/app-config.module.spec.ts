import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfigModule } from './app-config.module';
import { AppConfig } from './configuration';
import { ConfigurationError } from './configuration-error';

/** AppConfigModule without a configuration given: read by @nestjs/config from `.env` in the cwd. */
async function configFromCwd(): Promise<AppConfig> {
  @Module({ imports: [AppConfigModule.forRoot()] })
  class ConfigTestModule {}
  const context = await NestFactory.createApplicationContext(ConfigTestModule, {
    logger: false,
    abortOnError: false,
  });
  try {
    return context.get(AppConfig);
  } finally {
    await context.close();
  }
}

describe('AppConfigModule', () => {
  const cwd = process.cwd();
  let folder: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-config-'));
    process.chdir(folder);
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(folder, { recursive: true, force: true });
  });

  it('reads .env through @nestjs/config, under the real environment, without touching process.env', async () => {
    writeFileSync(
      join(folder, '.env'),
      'PORT=4100\nBASE_PATH=/raspisms\nDISPATCH_BATCH_SIZE=7\nSMSGW_NOT_A_SETTING=1\n',
    );
    const before = { ...process.env };
    process.env.DISPATCH_BATCH_SIZE = '9';
    try {
      const config = await configFromCwd();

      expect(config).toBeInstanceOf(AppConfig);
      expect(config.port).toBe(4100);
      expect(config.basePath).toBe('/raspisms');
      expect(config.dispatch.batchSize).toBe(9);
      expect({ ...process.env, DISPATCH_BATCH_SIZE: undefined }).toEqual({
        ...before,
        DISPATCH_BATCH_SIZE: undefined,
      });
    } finally {
      delete process.env.DISPATCH_BATCH_SIZE;
    }
  });

  it('refuses to start on an invalid variable, naming it in one line', async () => {
    writeFileSync(join(folder, '.env'), 'WORKER=sometimes\n');

    const failure = await configFromCwd().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ConfigurationError);
    expect((failure as Error).message).toMatch(
      /^Invalid environment variables: WORKER="sometimes"/,
    );
  });
});
