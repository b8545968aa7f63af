import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * GET /health (liveness) and GET /health/ready (readiness), over HTTP on the real app: Terminus's
 * JSON, 200 or 503, outside the API's key, envelope and base path.
 */

interface HealthBody {
  status: string;
  info?: Record<string, { status: string } & Record<string, unknown>>;
  error?: Record<string, { status: string } & Record<string, unknown>>;
  details: Record<string, { status: string } & Record<string, unknown>>;
}

describeEachDatabase('health', (database) => {
  describe('an API-only process', () => {
    let t: TestApp;

    beforeEach(async () => {
      t = await startApp(database());
    });
    afterEach(async () => {
      await t.close();
    });

    it('answers liveness with 200 and Terminus JSON, without an API key', async () => {
      const response = await request(t.url).get('/health');

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('answers readiness with 200 while the database answers with every migration applied', async () => {
      const response = await request(t.url).get('/health/ready');

      expect(response.status).toBe(200);
      expect((response.body as HealthBody).details).toEqual({
        database: { status: 'up' },
        migrations: { status: 'up' },
        worker: { status: 'up', running: false },
      });
    });

    it('answers readiness with 503 naming the migration that is pending', async () => {
      await t.dataSource.undoLastMigration();
      try {
        const response = await request(t.url).get('/health/ready');

        expect(response.status).toBe(503);
        const body = response.body as HealthBody;
        expect(body.status).toBe('error');
        expect(body.error).toEqual({
          migrations: { status: 'down', pending: ['HiddenScheduled1765470000000'] },
        });
      } finally {
        await t.dataSource.runMigrations();
      }
      expect((await request(t.url).get('/health/ready')).status).toBe(200);
    });

    it('answers readiness with 503 once the database is closed, and liveness still with 200', async () => {
      await t.dataSource.destroy();

      const ready = await request(t.url).get('/health/ready');
      expect(ready.status).toBe(503);
      expect((ready.body as HealthBody).error).toMatchObject({
        database: { status: 'down' },
        migrations: { status: 'down' },
      });
      expect((await request(t.url).get('/health')).status).toBe(200);
    });
  });

  it('serves the probes at the root when BASE_PATH mounts the API elsewhere', async () => {
    const t = await startApp(database(), { BASE_PATH: '/raspisms' });
    try {
      expect((await request(t.url).get('/health')).status).toBe(200);
      expect((await request(t.url).get('/health/ready')).status).toBe(200);
      expect((await request(t.url).get('/raspisms/health')).status).toBe(404);
      expect((await request(t.url).get('/raspisms/api/list/phone/')).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  describe('a process that runs the worker', () => {
    let t: TestApp;
    let provider: FakeServer;
    /** Resolves the send the fake provider holds. */
    let release: () => void = () => undefined;
    let held: Promise<void> = Promise.resolve();

    beforeAll(async () => {
      provider = await startFakeServer(async (_incoming, response) => {
        await held;
        response.writeHead(202, { 'Content-Type': 'text/plain' });
        response.end('0: Accepted for delivery');
      });
      t = await startApp(database(), {
        WORKER: 'inline',
        DISPATCH_POLL_MS: '20',
        WORKER_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      release();
      await t.close();
      await provider.close();
    });

    it('answers readiness with the age of its heartbeat while the loop goes round', async () => {
      const response = await request(t.url).get('/health/ready');

      expect(response.status).toBe(200);
      const worker = (response.body as HealthBody).details.worker;
      expect(worker).toMatchObject({ status: 'up', running: true, maxAgeMs: 1000 });
      expect(worker.heartbeatAgeMs).toBeLessThan(1000);
    });

    it('answers readiness with 503 while its loop is stuck on a send, and 200 once it goes on', async () => {
      held = new Promise((resolve) => {
        release = resolve;
      });
      const { user, apiKey } = await makeUser(t.dataSource);
      await makePhone(t.dataSource, user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify({
          kannel_sendsms_url: `${provider.url}/cgi-bin/sendsms`,
          username: 'smsgw',
          password: 'secret',
          from: 'smsgw',
        }),
      });
      const scheduled = await request(t.url)
        .get('/api/send-sms/')
        .query({ api_key: apiKey, to: '+33612345678', text: 'Hello' });
      expect(scheduled.status).toBe(200);

      let stuck: HealthBody | undefined;
      await waitFor(async () => {
        const response = await request(t.url).get('/health/ready');
        stuck = response.status === 503 ? (response.body as HealthBody) : undefined;
        return stuck !== undefined;
      }, 'readiness to fail');
      expect(stuck?.error?.worker).toMatchObject({ status: 'down', running: true });

      release();
      await waitFor(
        async () => (await request(t.url).get('/health/ready')).status === 200,
        'readiness to come back',
      );
    });
  });
});
