import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { insertRows, makePhone, makeScheduled, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { startFakeServer } from '../support/adapters.factories';

/*
 * GET /metrics over HTTP on the real app: the Prometheus text format, counters that move by
 * exactly what was done, and METRICS_TOKEN / METRICS=off.
 */

/** The value of the sample `name{labels}` in a scrape; 0 when the series is not there yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) {
      continue;
    }
    const given = match[2] ? match[2].split(/,(?=[a-zA-Z_]\w*=")/) : [];
    if (given.length === wanted.length && wanted.every((label) => given.includes(label))) {
      return Number(match[3].replace('+Inf', 'Infinity'));
    }
  }
  return 0;
}

async function scrape(t: TestApp): Promise<string> {
  const response = await request(t.url).get('/metrics');
  expect(response.status).toBe(200);
  return response.text;
}

describeEachDatabase('metrics', (database) => {
  describe('a process that runs the worker', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    });
    afterAll(async () => {
      await t.close();
    });

    it('serves the Prometheus text format, without an API key or an envelope', async () => {
      const response = await request(t.url).get('/metrics');

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      for (const [name, type] of [
        ['smsgw_http_request_duration_seconds', 'histogram'],
        ['smsgw_sent_entries_total', 'counter'],
        ['smsgw_provider_call_duration_seconds', 'histogram'],
        ['smsgw_paced_slots_missed_total', 'counter'],
        ['smsgw_sends_expired_total', 'counter'],
        ['smsgw_dispatch_queue_recipients', 'gauge'],
        ['smsgw_scheduled_due_messages', 'gauge'],
        ['smsgw_worker_heartbeat_age_seconds', 'gauge'],
        ['smsgw_webhook_attempts_total', 'counter'],
        ['smsgw_webhook_delivery_latency_seconds', 'histogram'],
        ['smsgw_webhook_queue_deliveries', 'gauge'],
        ['process_cpu_seconds_total', 'counter'],
        ['nodejs_eventloop_lag_seconds', 'gauge'],
      ]) {
        expect(response.text).toContain(`# TYPE ${name} ${type}\n`);
        expect(response.text).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      }
      expect(sample(response.text, 'smsgw_worker_heartbeat_age_seconds')).toBeLessThan(30);
    });

    it('counts the entries sent through the test adapter and their provider calls, exactly', async () => {
      const { user, apiKey } = await makeUser(t.dataSource);
      await makePhone(t.dataSource, user.id, { adapter_data: '{"delivery":"delivered"}' });
      const numbers = ['+33612345670', '+33612345671', '+33612345672', '+33612345673'];
      const sent = { adapter: 'test', status: 'delivered' };
      const called = { adapter: 'test', outcome: 'sent' };
      const scheduledRoute = { route: '/api/scheduled', method: 'POST', status: '201' };
      const before = await scrape(t);

      const scheduled = await request(t.url)
        .post('/api/scheduled/')
        .query({ api_key: apiKey })
        .send({ text: 'Hello', numbers });
      expect(scheduled.status).toBe(201);
      await waitFor(async () => {
        const [row] = await t.dataSource.query<Array<{ n: number | string }>>(
          'SELECT COUNT(*) AS n FROM sended WHERE id_user = ?',
          [user.id],
        );
        return Number(row.n) === numbers.length;
      }, 'the entries to be sent');
      const after = await scrape(t);

      const moved = (name: string, labels: Record<string, string>) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(moved('smsgw_sent_entries_total', sent)).toBe(numbers.length);
      expect(moved('smsgw_provider_call_duration_seconds_count', called)).toBe(numbers.length);
      expect(moved('smsgw_http_request_duration_seconds_count', scheduledRoute)).toBe(1);
      expect(sample(after, 'smsgw_dispatch_queue_recipients', { state: 'queued' })).toBe(0);
    });

    it('counts webhook attempts by outcome and their latency, and reads the queue when scraped', async () => {
      const receiver = await startFakeServer((incoming, response) => {
        response.writeHead(incoming.url === '/ok' ? 200 : 503);
        response.end();
      });
      try {
        const { apiKey } = await makeUser(t.dataSource);
        const hook = async (path: string) =>
          (
            await request(t.url)
              .post('/api/webhook/')
              .set('X-Api-Key', apiKey)
              .send({ url: `${receiver.url}${path}`, type: 'receive_sms' })
          ).body.response as number;
        const [ok, busy] = [await hook('/ok'), await hook('/busy')];
        const before = await scrape(t);

        for (const id of [ok, ok, busy]) {
          await request(t.url)
            .post(`/api/webhook/${id}/test/`)
            .set('X-Api-Key', apiKey)
            .expect(200);
        }
        await waitFor(async () => {
          const text = await scrape(t);
          return (
            sample(text, 'smsgw_webhook_attempts_total', { status: 'delivered' }) -
              sample(before, 'smsgw_webhook_attempts_total', { status: 'delivered' }) ===
              2 &&
            sample(text, 'smsgw_webhook_attempts_total', { status: 'retry' }) -
              sample(before, 'smsgw_webhook_attempts_total', { status: 'retry' }) ===
              1
          );
        }, 'the webhook attempts');
        const after = await scrape(t);

        expect(
          sample(after, 'smsgw_webhook_delivery_latency_seconds_count') -
            sample(before, 'smsgw_webhook_delivery_latency_seconds_count'),
        ).toBe(2);
        // The delivery to /busy waits for its retry, about 10 s away.
        expect(sample(after, 'smsgw_webhook_queue_deliveries')).toBeGreaterThanOrEqual(1);
      } finally {
        await receiver.close();
      }
    });

    it('labels requests with the route template, never the raw path', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      await request(t.url).delete('/api/scheduled/987654/').query({ api_key: apiKey });
      await request(t.url).get('/no/such/route/123456');
      await request(t.url).get('/api/no-such-operation/234567');
      const text = await scrape(t);

      expect(
        sample(text, 'smsgw_http_request_duration_seconds_count', {
          route: '/api/scheduled/:id',
          method: 'DELETE',
          status: '404',
        }),
      ).toBe(1);
      expect(
        sample(text, 'smsgw_http_request_duration_seconds_count', {
          route: 'unmatched',
          method: 'GET',
          status: '404',
        }),
      ).toBeGreaterThanOrEqual(1);
      // A GET outside the API answers the console's page: unmatched by the API's routes too.
      expect(
        sample(text, 'smsgw_http_request_duration_seconds_count', {
          route: 'unmatched',
          method: 'GET',
          status: '200',
        }),
      ).toBeGreaterThanOrEqual(1);
      // Only the labels: a sample's value (a heap size, a GC sum) may hold these digits by chance.
      const labels = text.match(/\{[^}]*\}/g)?.join('\n') ?? '';
      expect(labels).toContain('route=');
      expect(labels).not.toContain('987654');
      expect(labels).not.toContain('123456');
      expect(labels).not.toContain('234567');
    });
  });

  describe('an API-only process', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startApp(database(), { METRICS_TOKEN: 's3cret-token' });
    });
    afterAll(async () => {
      await t.close();
    });

    const scrapeWithToken = async () => {
      const response = await request(t.url)
        .get('/metrics')
        .set('Authorization', 'Bearer s3cret-token');
      expect(response.status).toBe(200);
      return response.text;
    };

    it('requires METRICS_TOKEN as a bearer token when it is set, answering 401 without the envelope', async () => {
      for (const authorization of [
        undefined,
        'Bearer wrong',
        'Basic s3cret-token',
        's3cret-token',
      ]) {
        const attempt = request(t.url).get('/metrics');
        const response = await (authorization
          ? attempt.set('Authorization', authorization)
          : attempt);
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(response.text).toBe('Unauthorized\n');
      }
      expect((await request(t.url).get('/health')).status).toBe(200);
    });

    it('reads the dispatch queue and the due messages from the database when scraped', async () => {
      const { user } = await makeUser(t.dataSource);
      const { user: suspended } = await makeUser(t.dataSource, { status: 'suspended' });
      await makeScheduled(t.dataSource, user.id, { at: '2024-01-01 00:00:00' });
      await makeScheduled(t.dataSource, user.id, { at: '2999-01-01 00:00:00' });
      await makeScheduled(t.dataSource, suspended.id, { at: '2024-01-01 00:00:00' });
      const outbox = (state: string, destination: string) => [
        user.id,
        0,
        destination,
        'Hello',
        0,
        0,
        state,
        0,
        '2024-01-01 00:00:00',
        '2024-01-01 00:00:00',
      ];
      await insertRows(
        t.dataSource,
        'outbox',
        [
          'id_user',
          'originating_scheduled',
          'destination',
          'text',
          'flash',
          'mms',
          'state',
          'attempts',
          'next_attempt_at',
          'created_at',
        ],
        [
          outbox('queued', '+33612345670'),
          outbox('queued', '+33612345671'),
          outbox('rejected', '+33612345672'),
        ],
      );

      const text = await scrapeWithToken();

      expect(sample(text, 'smsgw_scheduled_due_messages')).toBe(1);
      expect(
        ['unrendered', 'queued', 'rejected', 'sending'].map((state) =>
          sample(text, 'smsgw_dispatch_queue_recipients', { state }),
        ),
      ).toEqual([0, 2, 1, 0]);
      expect(sample(text, 'smsgw_worker_heartbeat_age_seconds')).toBe(Infinity);
    });
  });

  it('serves nothing at /metrics with METRICS=off', async () => {
    const t = await startApp(database(), { METRICS: 'off' });
    try {
      const response = await request(t.url).get('/metrics');
      expect(response.status).toBe(404);
      expect(response.text).toBe('Not Found\n');
    } finally {
      await t.close();
    }
  });
});
