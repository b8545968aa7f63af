import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { AppConfig } from '../config/configuration';
import { migrate, openDataSource } from './data-source';

/**
 * Opens the database and brings its schema up to date before anything else starts.
 * The `DataSource` is the only database handle; repositories take it by injection.
 */
@Global()
@Module({
  providers: [
    {
      provide: DataSource,
      inject: [AppConfig, SecretCipher],
      useFactory: async (config: AppConfig, secrets: SecretCipher): Promise<DataSource> => {
        const dataSource = await openDataSource(config.database, secrets);
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
      },
    },
  ],
  exports: [DataSource],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.dataSource.destroy();
    }
  }
}
