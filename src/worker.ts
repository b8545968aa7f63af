import { endLeanBoot } from './config/lean-boot';
import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AdaptersModule } from './adapters/adapters.module';
import { quietFrameworkStartup } from './common/logging/framework-startup';
import { loggingModule } from './common/logging/logging.module';
import { SecretsModule } from './common/secrets/secrets.module';
import { AppConfig } from './config/configuration';
import { AppConfigModule } from './config/app-config.module';
import { pinProcessClockToUtc } from './config/process-clock';
import { boundHeap } from './config/v8-heap';
import { DatabaseModule } from './database/database.module';
import { DispatchModule } from './dispatch/dispatch.module';
import { WorkerService } from './dispatch/worker.service';
import { startupFailure } from './startup-failure';

/** The dispatch worker without the HTTP API (`npm run worker`), beside API-only replicas. */
@Module({})
class WorkerModule {
  /** Built when the worker starts, which is when the configuration is read. */
  static forRoot(): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        AppConfigModule.forRoot(),
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
  pinProcessClockToUtc();
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(), {
    bufferLogs: true,
    // A failure to start is told once, below, rather than by Nest's console logger.
    abortOnError: false,
    autoFlushLogs: false,
  });
  app.useLogger(quietFrameworkStartup(app.get(Logger)));
  app.flushLogs();
  // Exits rather than re-raising the signal, so that the log lines still pending are written.
  app.enableShutdownHooks([], { useProcessExit: true });
  await app.init();
  endLeanBoot();
  if (!app.get(WorkerService).isRunning) {
    // SQLite already has its worker (it said so in the log): nothing for this process to do.
    await app.close();
    process.exitCode = 1;
  } else {
    boundHeap(app.get(AppConfig).heapGrowingPercent);
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`${startupFailure('The smsgw worker could not start', error)}\n`);
  process.exit(1);
});
