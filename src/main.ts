import 'reflect-metadata';
import { createApp } from './app.factory';
import { AppConfig, loadConfig } from './config/configuration';

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`smsgw could not start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
