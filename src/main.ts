import 'reflect-metadata';
import { createApp } from './app.factory';
import { SecretsKeyError } from './common/secrets/secrets-key';
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
  // A known configuration problem is one line; anything else comes with its stack.
  const told =
    error instanceof SecretsKeyError ? error.message : ((error as Error).stack ?? String(error));
  process.stderr.write(`smsgw could not start: ${told}\n`);
  process.exit(1);
});
