import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBuild, startBuiltApp } from '../support/built-app';

/*
 * The request log holds the requests worth reading: one line per API request, none for the
 * probes and scrapes an orchestrator and Prometheus send every few seconds.
 */
describe('the request log', () => {
  let folder: string;

  beforeAll(() => requireBuild());
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-request-log-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('logs API requests, not health probes or metrics scrapes', async () => {
    const app = await startBuiltApp(
      { DATA_DIR: folder, DATABASE_URL: `sqlite:${join(folder, 'db.sqlite')}`, LOG_LEVEL: 'info' },
      folder,
    );
    try {
      for (const path of ['/health', '/health/ready', '/metrics', '/api/usage?api_key=x']) {
        await (await fetch(`${app.url}${path}`)).arrayBuffer();
      }
    } finally {
      // Stopping flushes the log lines still pending.
      await app.stop();
    }
    const urls = app
      .output()
      .split('\n')
      .filter((line) => line.includes('"req":'))
      .map((line) => (JSON.parse(line) as { req: { url: string } }).req.url);

    expect(urls).toContain('/api/usage?api_key=[Redacted]');
    expect(urls.filter((url) => /^\/(health|metrics)/.test(url))).toEqual([]);
  });
});
