import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from './app.factory';
import { AppConfig } from './config/configuration';
import { validateEnvironment } from './config/env.validation';
import { openApiDocument } from './openapi';
import { startupFailure } from './startup-failure';

/**
 * Writes the OpenAPI document `/api/docs-json` serves to the file named by the first argument,
 * without listening, for the build to generate the console's client from. The application
 * cannot be built without a database: a throw-away SQLite file serves, so that the build needs
 * neither the operator's configuration nor a server.
 */
async function writeDocument(file: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-openapi-'));
  try {
    const app = await createApp(
      new AppConfig(
        validateEnvironment({
          DATABASE_URL: `sqlite:${join(dataDir, 'smsgw.sqlite')}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          WORKER: 'off',
        }),
      ),
    );
    try {
      writeFileSync(file, `${JSON.stringify(openApiDocument(app), null, 2)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/openapi-document.js <file>\n');
  process.exit(2);
}
writeDocument(file).catch((error: unknown) => {
  process.stderr.write(`${startupFailure('The OpenAPI document could not be written', error)}\n`);
  process.exit(1);
});
