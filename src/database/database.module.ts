import { Global, Logger, Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { AppConfig } from '../config/configuration';
import { dataSourceOptions, initializeDataSource, migrate } from './data-source';

/**
 * The cipher each data source's options were made with: @nestjs/typeorm gives the
 * `dataSourceFactory` nothing but the options.
 */
const ciphers = new WeakMap<TypeOrmModuleOptions, SecretCipher>();

/** Opens the database and brings its schema up to date before anything else starts. */
async function openAndMigrate(options: TypeOrmModuleOptions): Promise<DataSource> {
  const secrets = ciphers.get(options);
  if (!secrets) {
    throw new Error('The database options were not made by DatabaseModule.');
  }
  const dataSource = await initializeDataSource(
    new DataSource(options as DataSourceOptions),
    secrets,
  );
  let applied: string[];
  try {
    applied = await migrate(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  if (applied.length > 0) {
    new Logger(DatabaseModule.name).log(`Applied migrations: ${applied.join(', ')}`);
  }
  return dataSource;
}

/**
 * The database, through @nestjs/typeorm: the `DataSource` it provides (and closes at shutdown)
 * is the one database handle; feature modules register their entities with `forFeature`.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig, SecretCipher],
      useFactory: (config: AppConfig, secrets: SecretCipher): TypeOrmModuleOptions => {
        const options: TypeOrmModuleOptions = {
          ...dataSourceOptions(config.database),
          // A database that cannot be opened or migrated (a wrong key, a schema ahead of this
          // version) stops the boot at once, told once by the entry point, not retried.
          toRetry: () => false,
        };
        ciphers.set(options, secrets);
        return options;
      },
      dataSourceFactory: (options) => openAndMigrate(options as TypeOrmModuleOptions),
    }),
  ],
})
export class DatabaseModule {}
