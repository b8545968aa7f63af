import { ModuleMetadata } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AdaptersModule } from '../../src/adapters/adapters.module';
import { ApiError } from '../../src/common/errors/api-error';
import { AuthenticatedUser } from '../../src/common/http/request';
import { SecretsModule } from '../../src/common/secrets/secrets.module';
import { AppConfigModule } from '../../src/config/app-config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { DEFAULT_SETTINGS } from '../../src/users/settings';
import { testConfig } from './app';
import { TestDatabase } from './databases';
import { makeUser } from './factories';

/**
 * A Nest testing module of the feature modules in `imports`, over the app's own global modules
 * (configuration, secrets, the test database opened and migrated as at boot, the adapters): a
 * service spec gets the real service with its real repository, without the HTTP layer.
 * Close it with `close()`, which closes the database.
 */
export function featureTestingModule(
  database: TestDatabase,
  imports: NonNullable<ModuleMetadata['imports']>,
): Promise<TestingModule> {
  return Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot(testConfig(database)),
      SecretsModule,
      DatabaseModule,
      AdaptersModule,
      ...imports,
    ],
  }).compile();
}

/** A new user, as the API-key guard hands it to a service. */
export async function makeCaller(
  dataSource: DataSource,
  settings: Record<string, string> = {},
): Promise<AuthenticatedUser> {
  const { user, apiKey } = await makeUser(dataSource, { settings });
  return {
    id: user.id,
    email: user.email,
    admin: false,
    apiKey,
    settings: { ...DEFAULT_SETTINGS, ...settings },
  };
}

/** The ApiError `promise` is rejected with; anything else fails the test. */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) {
    throw new Error(`expected an ApiError, got ${String(error)}`);
  }
  return error;
}
