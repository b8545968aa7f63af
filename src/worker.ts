import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AdaptersModule } from './adapters/adapters.module';
import { loggingModule } from './common/logging/logging.module';
import { SecretsModule } from './common/secrets/secrets.module';
import { SecretsKeyError } from './common/secrets/secrets-key';
import { ConfigModule } from './config/config.module';
import { AppConfig, loadConfig } from './config/configuration';
import { DatabaseModule } from './database/database.module';
import { DispatchModule } from './dispatch/dispatch.module';
import { WorkerService } from './dispatch/worker.service';

/** The dispatch worker without the HTTP API (`npm run worker`), beside API-only replicas. */
@Module({})
class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule(),
        SecretsModule,
        DatabaseModule,
        AdaptersModule,
        DispatchModule.forRoot(true),
      ],
    };
  }
}

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    bufferLogs: true,
    // A failure to start is told once, below, rather than by Nest's console logger.
    abortOnError: false,
    autoFlushLogs: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  // Exits rather than re-raising the signal, so that the log lines still pending are written.
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.init();
  if (!app.get(WorkerService).isRunning) {
    // SQLite already has its worker (it said so in the log): nothing for this process to do.
    await app.close();
    process.exitCode = 1;
  }
}

bootstrap().catch((error: unknown) => {
  // A known configuration problem is one line; anything else comes with its stack.
  const told =
    error instanceof SecretsKeyError ? error.message : ((error as Error).stack ?? String(error));
  process.stderr.write(`The smsgw worker could not start: ${told}\n`);
  process.exit(1);
});
