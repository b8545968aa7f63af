import { endLeanBoot } from './config/lean-boot';
import 'reflect-metadata';
import { createApp } from './app.factory';
import { AppConfig } from './config/configuration';
import { pinProcessClockToUtc } from './config/process-clock';
import { boundHeap } from './config/v8-heap';
import { announceStartup } from './startup-announcement';
import { startupFailure } from './startup-failure';

async function bootstrap(): Promise<void> {
  pinProcessClockToUtc();
  const app = await createApp();
  const config = app.get(AppConfig);
  await app.listen(config.port, config.host);
  endLeanBoot();
  boundHeap(config.heapGrowingPercent);
  announceStartup(app, config);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`${startupFailure('smsgw could not start', error)}\n`);
  process.exit(1);
});
