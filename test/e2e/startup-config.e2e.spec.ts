import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBuild, runBuilt, startBuiltApp } from '../support/built-app';

/*
 * The server and the worker read their configuration through @nestjs/config: `.env` in the
 * folder they start in, under the real environment, refused in one line when invalid.
 */
describe('the configuration at startup', () => {
  let folder: string;

  beforeAll(() => requireBuild());
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-startup-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it.each(['main.js', 'worker.js'])(
    '%s refuses an invalid .env variable in one line naming it',
    async (script) => {
      writeFileSync(join(folder, '.env'), 'WORKER=sometimes\n');

      const run = await runBuilt(script, { DATA_DIR: folder }, folder);

      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'Invalid environment variables: WORKER="sometimes": WORKER must be one of the ' +
          'following values: inline, off\n',
      });
    },
  );

  it.each(['main.js', 'worker.js'])(
    '%s refuses an invalid setting of a provider in one line naming it',
    async (script) => {
      const run = await runBuilt(
        script,
        {
          DATA_DIR: folder,
          DATABASE_URL: `sqlite:${join(folder, 'db.sqlite')}`,
          TWILIO_API_URL: 'api.twilio.com',
        },
        folder,
      );

      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'Invalid environment variables: TWILIO_API_URL="api.twilio.com": TWILIO_API_URL must ' +
          'be an absolute http(s) URL\n',
      });
    },
  );

  it('serves with the settings of .env, the real environment winning', async () => {
    writeFileSync(
      join(folder, '.env'),
      `BASE_PATH=/raspisms\nDATABASE_URL=sqlite:${join(folder, 'db.sqlite')}\nWORKER=sometimes\n`,
    );
    const app = await startBuiltApp(
      { DATA_DIR: folder, WORKER: 'off' },
      folder,
      '/raspisms/api/docs-json',
    );
    try {
      const response = await fetch(`${app.url}/raspisms/api/usage?api_key=x`);

      expect(response.status).toBe(401);
    } finally {
      await app.stop();
    }
  });
});
