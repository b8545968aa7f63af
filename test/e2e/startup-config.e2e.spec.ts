import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuiltApp, requireBuild, runBuilt, startBuiltApp } from '../support/built-app';

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
  it('says first where it serves the console, the API and its OpenAPI document, localhost for every interface', async () => {
    const app = await startBuiltApp(
      {
        DATA_DIR: folder,
        DATABASE_URL: `sqlite:${join(folder, 'db.sqlite')}`,
        HOST: '0.0.0.0',
        WORKER: 'off',
      },
      folder,
    );
    try {
      const lines = await linesUntil(app, (line) => line.context === 'smsgw');
      const origin = `http://localhost:${new URL(app.url).port}`;
      const base = `${origin}/api`;

      expect(lines.at(-1)).toMatchObject({
        level: 30,
        msg:
          `smsgw serves the console at ${origin}/, the API at ${base}/, its OpenAPI document ` +
          `at ${base}/docs (JSON at ${base}/docs-json)`,
        console: `${origin}/`,
        api: `${base}/`,
        openapi: `${base}/docs`,
        openapi_json: `${base}/docs-json`,
      });
      // Only the migrations of the new database come before it: not Nest's line per route.
      expect(lines.slice(0, -1).map((line) => line.context)).toEqual(['DatabaseModule']);
    } finally {
      await app.stop();
    }
  });
});

/** The JSON lines the app logged, up to the first that `last` accepts (waited for, 10 s). */
async function linesUntil(
  app: BuiltApp,
  last: (line: Record<string, unknown>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = app
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const found = lines.findIndex(last);
    if (found >= 0) {
      return lines.slice(0, found + 1);
    }
    if (Date.now() > deadline) {
      throw new Error(`No such line within 10 s:\n${app.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
