import './common/runtime/hold-young-generation';
import 'reflect-metadata';
import { createApp } from './app.factory';
import { boundHeap, collectStartGarbage } from './common/runtime/v8-heap';
import { AppConfig } from './config/configuration';
import { pinProcessClockToUtc } from './config/process-clock';
import { announceStartup } from './startup-announcement';
import { startupFailure } from './startup-failure';

async function bootstrap(): Promise<void> {
  pinProcessClockToUtc();
  const app = await createApp();
  const config = app.get(AppConfig);
  boundHeap(config.heapGrowingPercent);
  await app.listen(config.port, config.host);
  announceStartup(app, config);
  if (config.heapGrowingPercent > 0) {
    collectStartGarbage();
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`${startupFailure('smsgw could not start', error)}\n`);
  process.exit(1);
});
