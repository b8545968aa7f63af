import { createHmac } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { WebhookDelivery } from '../../src/events/entities/webhook-delivery.entity';
import { Webhook } from '../../src/webhooks/entities/webhook.entity';
import { PER_ORIGIN, WebhookDeliverer } from '../../src/webhook-delivery/webhook-deliverer.service';
import {
  AttemptRecord,
  WebhookDeliveryRepository,
} from '../../src/webhook-delivery/webhook-delivery.repository';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeSended, makeUser } from '../support/factories';
import {
  CANNOT_UPDATE,
  expectError,
  expectSuccess,
  INVALID,
  INVALID_PARAMETER,
} from '../support/envelope';
import { waitFor } from '../support/instruments';

/*
 * Webhook deliveries end to end, on every database engine: events written by the changes that
 * cause them reach a receiver on 127.0.0.1 in both wire formats, verified as receivers verify
 * them; each answer an endpoint can give is handled as docs/api.md#webhook-deliveries says,
 * with the retries' schedule read from the delivery log on a clock the test sets; a hanging
 * endpoint holds only its own slots.
 */

const TIMEOUT_MS = 1500;
const HOUR = 3_600_000;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An endpoint whose answer depends on its path; it keeps every request it read. */
class Receiver {
  readonly requests: Received[] = [];
  /** Requests it holds without answering (`/hang`). */
  readonly hanging = new Set<ServerResponse>();
  /** Of those, how many the client gave up (its timeout). */
  abandoned = 0;
  server!: FakeServer;

  readonly handle = (incoming: IncomingMessage, response: ServerResponse, body: string): void => {
    const path = (incoming.url ?? '/').split('?')[0];
    this.requests.push({ path, headers: incoming.headers, body });
    const status = /^\/(\d{3})$/.exec(path);
    if (status) {
      response.writeHead(Number(status[1]), { 'Content-Type': 'text/plain' });
      response.end(Number(status[1]) >= 400 ? `no: ${status[1]}` : '');
    } else if (path === '/hang') {
      this.hanging.add(response);
      response.on('close', () => {
        this.hanging.delete(response);
        this.abandoned += 1;
      });
    } else if (path === '/slow') {
      // Answers, but after twice the timeout.
      const timer = setTimeout(() => {
        response.writeHead(200);
        response.end('late');
      }, 2 * TIMEOUT_MS);
      response.on('close', () => clearTimeout(timer));
    } else if (path === '/reset') {
      incoming.socket.destroy();
    } else if (path === '/redirect') {
      response.writeHead(302, { Location: `${this.server.url}/200` });
      response.end();
    } else {
      response.writeHead(200);
      response.end('ok');
    }
  };

  count(path: string): number {
    return this.requests.filter((received) => received.path === path).length;
  }

  async start(): Promise<this> {
    this.server = await startFakeServer(this.handle);
    return this;
  }
}

describeEachDatabase('webhook deliveries', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let deliverer: WebhookDeliverer;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await startApp(database(), { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    ds = t.dataSource;
    deliverer = t.app.get(WebhookDeliverer);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    for (const response of receiver.hanging) {
      response.destroy();
    }
    await receiver.server.close();
    await t.close();
  });

  const post = (path: string, apiKey: string, fields: Record<string, unknown> = {}) =>
    api(t, apiKey).post(path).send(fields);

  /** A user with a webhook to `url`; the webhook's id. */
  async function hookTo(
    url: string,
    fields: Record<string, unknown> = {},
  ): Promise<{ apiKey: string; userId: number; id: number }> {
    const { user, apiKey } = await makeUser(ds);
    const created = await post('/api/webhook/', apiKey, { url, type: 'receive_sms', ...fields });
    expect(created.status).toBe(201);
    return { apiKey, userId: user.id, id: created.body.response as number };
  }

  /**
   * Disables a webhook whose endpoint hangs or answers late, failing its pending deliveries: a
   * later test's deliverDue claims every delivery due on its clock, and each of these would hold
   * it for WEBHOOK_TIMEOUT_MS.
   */
  async function retire(hook: { apiKey: string; id: number }): Promise<void> {
    await post(`/api/webhook/${hook.id}/`, hook.apiKey, { enabled: '0' }).expect(200);
  }

  async function ping(apiKey: string, id: number): Promise<number> {
    const queued = await post(`/api/webhook/${id}/test/`, apiKey);
    expect(queued.status).toBe(200);
    return queued.body.response as number;
  }

  const delivery = (id: number) => ds.getRepository(WebhookDelivery).findOneByOrFail({ id });
  const seconds = (utc: string | null) => Date.parse(`${utc?.replace(' ', 'T')}Z`) / 1000;

  describe('answers', () => {
    it('delivers on a 2xx: delivered, one attempt, the HTTP status kept', async () => {
      const hook = await hookTo(`${receiver.server.url}/204`);
      const id = await ping(hook.apiKey, hook.id);

      await deliverer.deliverDue(new Date());

      expect(await delivery(id)).toMatchObject({
        status: 'delivered',
        attempts: 1,
        last_http_status: 204,
        last_error: null,
        last_answer: null,
        next_attempt_at: null,
      });
      expect((await delivery(id)).delivered_at).not.toBeNull();
    });

    it.each([
      ['500', 500, 'The endpoint answered HTTP 500: no: 500.'],
      ['429', 429, 'The endpoint answered HTTP 429: no: 429.'],
      ['408', 408, 'The endpoint answered HTTP 408: no: 408.'],
      ['503', 503, 'The endpoint answered HTTP 503: no: 503.'],
    ])(
      'retries a %s with a backoff that grows from about 10 s, visible in the log, then gives up after WEBHOOK_MAX_AGE_HOURS',
      async (path, status, error) => {
        const hook = await hookTo(`${receiver.server.url}/${path}`);
        const id = await ping(hook.apiKey, hook.id);
        const queuedAt = seconds((await delivery(id)).event_at);
        let now = new Date();
        const waits: number[] = [];
        for (let attempt = 1; attempt <= 5; attempt++) {
          await deliverer.deliverDue(now);
          const row = await delivery(id);
          expect(row).toMatchObject({
            status: 'pending',
            attempts: attempt,
            last_http_status: status,
            last_error: error,
            last_answer: `no: ${path}`,
          });
          waits.push(seconds(row.next_attempt_at) - Math.floor(now.getTime() / 1000));
          now = new Date(seconds(row.next_attempt_at) * 1000);
        }
        // 10 s, 20 s, 40 s, 80 s, 160 s, each within ±20 % (and a second of rounding).
        waits.forEach((wait, index) => {
          const nominal = 10 * 2 ** index;
          expect(wait).toBeGreaterThanOrEqual(Math.floor(nominal * 0.8) - 1);
          expect(wait).toBeLessThanOrEqual(Math.ceil(nominal * 1.2) + 1);
        });

        await deliverer.deliverDue(new Date((queuedAt + 24 * 3600 - 5) * 1000));

        const last = await delivery(id);
        expect(last.status).toBe('failed');
        expect(last.attempts).toBe(6);
        expect(last.next_attempt_at).toBeNull();
        expect(last.last_error).toBe(
          `${error} Given up after 6 attempts: the event is older than WEBHOOK_MAX_AGE_HOURS (24 h).`,
        );
      },
    );

    it('never waits more than an hour between two attempts', async () => {
      const hook = await hookTo(`${receiver.server.url}/500`);
      const id = await ping(hook.apiKey, hook.id);
      await ds.getRepository(WebhookDelivery).update({ id }, { attempts: 20 });
      const now = new Date();

      await deliverer.deliverDue(now);

      const row = await delivery(id);
      expect(row.attempts).toBe(21);
      expect(seconds(row.next_attempt_at) - Math.floor(now.getTime() / 1000)).toBeLessThanOrEqual(
        3600,
      );
      expect(seconds(row.next_attempt_at) - Math.floor(now.getTime() / 1000)).toBeGreaterThan(2800);
    });

    it.each([
      ['404', 404, 'The endpoint answered HTTP 404: no: 404.'],
      ['400', 400, 'The endpoint answered HTTP 400: no: 400.'],
      ['401', 401, 'The endpoint answered HTTP 401: no: 401.'],
    ])('fails a %s at once, without retrying', async (path, status, error) => {
      const hook = await hookTo(`${receiver.server.url}/${path}`);
      const id = await ping(hook.apiKey, hook.id);

      await deliverer.deliverDue(new Date());
      await deliverer.deliverDue(new Date(Date.now() + HOUR));

      expect(await delivery(id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_http_status: status,
        last_error: error,
        next_attempt_at: null,
      });
    });

    it('fails a 410 at once and disables the webhook, failing its other pending deliveries', async () => {
      const hook = await hookTo(`${receiver.server.url}/410`);
      const first = await ping(hook.apiKey, hook.id);
      const later = await ping(hook.apiKey, hook.id);
      await ds
        .getRepository(WebhookDelivery)
        .update({ id: later }, { next_attempt_at: '2999-01-01 00:00:00' });
      await deliverer.deliverDue(new Date());
      const before = receiver.count('/410');

      expect(await delivery(first)).toMatchObject({
        status: 'failed',
        last_http_status: 410,
        last_error: 'The webhook was disabled: its endpoint answered HTTP 410 Gone.',
      });
      expect(await delivery(later)).toMatchObject({
        status: 'failed',
        attempts: 0,
        last_error: 'The webhook was disabled: its endpoint answered HTTP 410 Gone.',
      });
      const webhook = await ds.getRepository(Webhook).findOneByOrFail({ id: hook.id });
      expect(Number(webhook.enabled)).toBe(0);
      expectError(
        await post(`/api/webhook/${hook.id}/test/`, hook.apiKey),
        422,
        8,
        `Cannot create a new entry. Webhook ${hook.id} is disabled: enable it (enabled=1) to test it.`,
      );
      expect(receiver.count('/410')).toBe(before);
    });

    it('fails a redirect at once, without following it', async () => {
      const hook = await hookTo(`${receiver.server.url}/redirect`);
      const id = await ping(hook.apiKey, hook.id);
      const delivered = receiver.count('/200');

      await deliverer.deliverDue(new Date());

      expect(await delivery(id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_http_status: 302,
        last_error:
          `The endpoint answered HTTP 302, a redirect to ${receiver.server.url}/200: redirects ` +
          'are not followed; give the webhook its final URL.',
      });
      expect(receiver.count('/200')).toBe(delivered);
    });

    it.each([
      ['hangs without answering', 'hang'],
      ['answers too late', 'slow'],
    ])('retries an endpoint that %s, after WEBHOOK_TIMEOUT_MS', async (_, path) => {
      const hook = await hookTo(`${receiver.server.url}/${path}`);
      const id = await ping(hook.apiKey, hook.id);

      await deliverer.deliverDue(new Date());

      expect(await delivery(id)).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_http_status: null,
        last_error: 'No answer within 1500 ms (WEBHOOK_TIMEOUT_MS).',
        last_answer: null,
      });
      await retire(hook);
    });

    it('retries a connection reset and a refused connection', async () => {
      const reset = await hookTo(`${receiver.server.url}/reset`);
      const resetId = await ping(reset.apiKey, reset.id);
      const closed = await startFakeServer(() => undefined);
      const refusedUrl = `${closed.url}/gone`;
      await closed.close();
      const refused = await hookTo(refusedUrl);
      const refusedId = await ping(refused.apiKey, refused.id);

      await deliverer.deliverDue(new Date());

      expect(await delivery(resetId)).toMatchObject({ status: 'pending', attempts: 1 });
      expect((await delivery(resetId)).last_error).toMatch(
        /^Could not reach the endpoint \((connection reset|connection closed)\)\.$/,
      );
      expect(await delivery(refusedId)).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_error: 'Could not reach the endpoint (connection refused).',
      });
    });
  });

  describe('a stored delivery gone bad', () => {
    it('fails it, saying so, rather than trying it again at every lease', async () => {
      const hook = await hookTo(`${receiver.server.url}/200`);
      const id = await ping(hook.apiKey, hook.id);
      await ds.getRepository(WebhookDelivery).update({ id }, { payload: '{not json' });

      await deliverer.deliverDue(new Date());

      expect(await delivery(id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_error: 'The delivery could not be prepared; the server log holds the details.',
      });
    });
  });

  describe('isolation', () => {
    it('lets a healthy endpoint be delivered while a hanging one holds its own slots', async () => {
      const healthy = await new Receiver().start();
      const hung = await hookTo(`${receiver.server.url}/hang`);
      const fine = await hookTo(`${healthy.server.url}/200`);
      for (let index = 0; index < 3 * PER_ORIGIN; index++) {
        await ping(hung.apiKey, hung.id);
      }
      for (let index = 0; index < 5; index++) {
        await ping(fine.apiKey, fine.id);
      }
      const stop = new AbortController();
      const running = deliverer.run(stop.signal, 20);
      try {
        const abandoned = receiver.abandoned;
        await waitFor(() => Promise.resolve(healthy.count('/200') === 5), 'the healthy deliveries');
        // None of the hanging endpoint's requests, started first, has reached its timeout.
        expect(receiver.abandoned).toBe(abandoned);
        await waitFor(
          () => Promise.resolve(receiver.hanging.size === PER_ORIGIN),
          'a wave of requests held by the hanging endpoint',
        );
      } finally {
        stop.abort();
        await running;
        await healthy.server.close();
      }
      // Stopping hands back what waited for a slot: not attempted, due at once.
      const waiting = await ds
        .getRepository(WebhookDelivery)
        .findBy({ id_webhook: hung.id, attempts: 0, status: 'pending' });
      expect(waiting).toHaveLength(2 * PER_ORIGIN);
      await retire(hung);
    });
  });

  describe('wire formats and events', () => {
    it('delivers receive_sms to a raspisms webhook, signed as RaspiSMS receivers check it', async () => {
      const hook = await hookTo(`${receiver.server.url}/raspisms`);
      const phone = await makePhone(ds, hook.userId);
      const from = receiver.requests.length;

      await api(t, hook.apiKey, 'query')
        .post(`/callback/reception/test/${phone.id}/`)
        .type('form')
        .send({ origin: '+33612345678', text: 'Hello there' })
        .expect(200);
      await deliverer.deliverDue(new Date());

      const [got] = receiver.requests.slice(from).filter((r) => r.path === '/raspisms');
      expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const form = new URLSearchParams(got.body);
      const { secret } = await ds.getRepository(Webhook).findOneByOrFail({ id: hook.id });
      const randomId = form.get('webhook_random_id') ?? '';
      expect(form.get('webhook_signature')).toBe(
        createHmac('sha256', secret).update(randomId).digest('hex'),
      );
      expect(form.get('webhook_type')).toBe('receive_sms');
      const body = JSON.parse(form.get('body') ?? 'null') as Record<string, unknown>;
      expect(body).toEqual({
        id: expect.any(Number),
        at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        text: 'Hello there',
        origin: '+33612345678',
        destination: phone.id,
        id_phone: phone.id,
        mms: false,
        medias: [],
      });
    });

    it('delivers send_sms_status_change to a standard webhook that the standardwebhooks verifier accepts', async () => {
      const hook = await hookTo(`${receiver.server.url}/standard`, {
        type: 'send_sms_status_change',
        format: 'standard',
      });
      const sended = await makeSended(ds, hook.userId, { status: 'unknown' });
      const from = receiver.requests.length;

      await api(t, hook.apiKey, 'query')
        .get('/callback/status/test/', { uid: sended.uid, status: 'delivered' })
        .expect(200);
      await deliverer.deliverDue(new Date());

      const [got] = receiver.requests.slice(from).filter((r) => r.path === '/standard');
      const { secret } = await ds.getRepository(Webhook).findOneByOrFail({ id: hook.id });
      const verified = new StandardWebhook(secret).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      });
      expect(verified).toEqual({
        type: 'send_sms_status_change',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        data: {
          id: sended.id,
          status: 'delivered',
          previous_status: 'unknown',
          destination: sended.destination,
          id_phone: sended.id_phone,
          uid: sended.uid,
        },
      });
    });

    it('queues nothing while the user turned the webhook setting off, nor for a disabled webhook', async () => {
      const hook = await hookTo(`${receiver.server.url}/off`);
      const phone = await makePhone(ds, hook.userId);
      await post('/api/setting/', hook.apiKey, { webhook: '0' }).expect(200);
      await api(t, hook.apiKey, 'query')
        .post(`/callback/reception/test/${phone.id}/`)
        .type('form')
        .send({ origin: '+33612345678', text: 'Setting off' })
        .expect(200);
      await post('/api/setting/', hook.apiKey, { webhook: '1' }).expect(200);
      await post(`/api/webhook/${hook.id}/`, hook.apiKey, { enabled: '0' }).expect(200);
      await api(t, hook.apiKey, 'query')
        .post(`/callback/reception/test/${phone.id}/`)
        .type('form')
        .send({ origin: '+33612345678', text: 'Webhook disabled' })
        .expect(200);

      expect(await ds.getRepository(WebhookDelivery).countBy({ id_webhook: hook.id })).toBe(0);
    });
  });

  describe('retry and disable', () => {
    it('retries a failed delivery on request, with the same event id, and refuses one that is not failed', async () => {
      const hook = await hookTo(`${receiver.server.url}/404`);
      const id = await ping(hook.apiKey, hook.id);
      await deliverer.deliverDue(new Date());
      const failed = await delivery(id);
      expect(failed.status).toBe('failed');
      await post(`/api/webhook/${hook.id}/`, hook.apiKey, {
        url: `${receiver.server.url}/200`,
      }).expect(200);

      expectSuccess(
        await post(`/api/webhook/${hook.id}/deliveries/${id}/retry/`, hook.apiKey),
        200,
        id,
      );
      expect((await delivery(id)).status).toBe('pending');
      expectError(
        await post(`/api/webhook/${hook.id}/deliveries/${id}/retry/`, hook.apiKey),
        400,
        INVALID_PARAMETER,
        `${INVALID}delivery_id : delivery ${id} is pending: only a failed delivery is retried.`,
      );
      const from = receiver.requests.length;
      await deliverer.deliverDue(new Date());

      expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });
      const [got] = receiver.requests.slice(from).filter((r) => r.path === '/200');
      expect(new URLSearchParams(got.body).get('webhook_random_id')).toBe(failed.event_id);
    });

    it("answers another user's delivery, or another webhook's, as a missing one", async () => {
      const mine = await hookTo(`${receiver.server.url}/404`);
      const theirs = await hookTo(`${receiver.server.url}/404`);
      const id = await ping(theirs.apiKey, theirs.id);
      await deliverer.deliverDue(new Date());

      for (const path of [
        `/api/webhook/${theirs.id}/deliveries/${id}/retry/`,
        `/api/webhook/${mine.id}/deliveries/${id}/retry/`,
      ]) {
        expectError(
          await post(path, mine.apiKey),
          404,
          INVALID_PARAMETER,
          new RegExp(`has no delivery ${id}\\.$`),
        );
      }
      expect((await delivery(id)).status).toBe('failed');
    });

    it('fails the pending deliveries of a webhook its user disables, and refuses to retry them until enabled', async () => {
      const hook = await hookTo(`${receiver.server.url}/200`);
      const id = await ping(hook.apiKey, hook.id);

      await post(`/api/webhook/${hook.id}/`, hook.apiKey, { enabled: '0' }).expect(200);

      expect(await delivery(id)).toMatchObject({
        status: 'failed',
        last_error: 'The webhook was disabled by its user.',
      });
      expectError(
        await post(`/api/webhook/${hook.id}/deliveries/${id}/retry/`, hook.apiKey),
        422,
        CANNOT_UPDATE,
        `Cannot update this entry : webhook ${hook.id} is disabled: enable it (enabled=1) to retry ` +
          'its deliveries.',
      );
    });
  });

  describe('the log', () => {
    it("shows the latest attempt's answer (last_answer), a 2xx's included, and dates it (updated_at)", async () => {
      const hook = await hookTo(`${receiver.server.url}/500`);
      const id = await ping(hook.apiKey, hook.id);
      const logged = async () => {
        const answer = await api(t, hook.apiKey)
          .get(`/api/webhook/${hook.id}/deliveries/`)
          .expect(200);
        return (answer.body.response as Array<Record<string, unknown>>)[0];
      };
      expect(await logged()).toMatchObject({ id, status: 'pending', updated_at: null });

      // A minute on, to the second: distinct from the queueing, within the event's age limit.
      const attemptedAt = new Date((Math.floor(Date.now() / 1000) + 60) * 1000);
      await deliverer.deliverDue(attemptedAt);

      expect(await logged()).toMatchObject({
        id,
        status: 'pending',
        attempts: 1,
        last_http_status: 500,
        last_error: 'The endpoint answered HTTP 500: no: 500.',
        last_answer: 'no: 500',
        updated_at: attemptedAt.toISOString().slice(0, 19).replace('T', ' '),
      });

      await post(`/api/webhook/${hook.id}/`, hook.apiKey, {
        url: `${receiver.server.url}/accepted`,
      }).expect(200);
      await deliverer.deliverDue(new Date(attemptedAt.getTime() + HOUR));

      expect(await logged()).toMatchObject({
        id,
        status: 'delivered',
        attempts: 2,
        last_http_status: 200,
        last_error: null,
        last_answer: 'ok',
      });
    });

    it('lists every attempt, newest first, with its time, HTTP status, answer and error; a retry adds one', async () => {
      const hook = await hookTo(`${receiver.server.url}/500`);
      const id = await ping(hook.apiKey, hook.id);
      const logged = async () => {
        const answer = await api(t, hook.apiKey)
          .get(`/api/webhook/${hook.id}/deliveries/`)
          .expect(200);
        return (answer.body.response as Array<Record<string, unknown>>)[0];
      };
      expect(await logged()).toMatchObject({ id, attempt_log: [], attempt_log_total: 0 });

      const first = new Date((Math.floor(Date.now() / 1000) + 60) * 1000);
      const times = [first, new Date(first.getTime() + HOUR), new Date(first.getTime() + 2 * HOUR)];
      const utc = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');
      await deliverer.deliverDue(times[0]);
      await deliverer.deliverDue(times[1]);
      await post(`/api/webhook/${hook.id}/`, hook.apiKey, {
        url: `${receiver.server.url}/accepted`,
      }).expect(200);
      await deliverer.deliverDue(times[2]);

      const failure = {
        http_status: 500,
        answer: 'no: 500',
        error: 'The endpoint answered HTTP 500: no: 500.',
      };
      const delivered = await logged();
      expect(delivered).toMatchObject({
        status: 'delivered',
        attempts: 3,
        attempt_log_total: 3,
        attempt_log: [
          { started_at: utc(times[2]), http_status: 200, answer: 'ok', error: null },
          { started_at: utc(times[1]), ...failure },
          { started_at: utc(times[0]), ...failure },
        ],
      });
      const attempts = delivered.attempt_log as Array<{ id: number; duration_ms: number }>;
      expect(attempts[0].id).toBeGreaterThan(attempts[1].id);
      expect(attempts[1].id).toBeGreaterThan(attempts[2].id);
      for (const attempt of attempts) {
        expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
        expect(attempt.duration_ms).toBeLessThan(TIMEOUT_MS);
      }

      // A 404 fails at once; retried towards an endpoint that answers, it is delivered.
      await post(`/api/webhook/${hook.id}/`, hook.apiKey, {
        url: `${receiver.server.url}/404`,
      }).expect(200);
      const second = await ping(hook.apiKey, hook.id);
      await deliverer.deliverDue(times[2]);
      await post(`/api/webhook/${hook.id}/`, hook.apiKey, {
        url: `${receiver.server.url}/204`,
      }).expect(200);
      await post(`/api/webhook/${hook.id}/deliveries/${second}/retry/`, hook.apiKey).expect(200);
      await deliverer.deliverDue(times[2]);

      expect(await logged()).toMatchObject({
        id: second,
        status: 'delivered',
        attempt_log_total: 2,
        attempt_log: [
          { http_status: 204, answer: null, error: null },
          {
            http_status: 404,
            answer: 'no: 404',
            error: 'The endpoint answered HTTP 404: no: 404.',
          },
        ],
      });
    });

    it('records an attempt only with its outcome: not for a claim that has been taken over', async () => {
      const hook = await hookTo(`${receiver.server.url}/200`);
      const id = await ping(hook.apiKey, hook.id);
      const repository = t.app.get(WebhookDeliveryRepository);
      const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
      const record: AttemptRecord = {
        id,
        attempts: 3,
        status: 'delivered',
        httpStatus: 200,
        error: null,
        answer: 'ok',
        startedAt: now,
        durationMs: 4,
      };
      const attempts = () =>
        ds.query<Array<{ http_status: number }>>(
          'SELECT http_status FROM webhook_attempt WHERE id_delivery = ?',
          [id],
        );

      // Claimed for its third attempt, but the row says otherwise (another worker's claim).
      await repository.record([record], now);
      expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await attempts()).toEqual([]);

      await repository.record([{ ...record, attempts: 0 }], now);
      expect(await delivery(id)).toMatchObject({ status: 'delivered', last_http_status: 200 });
      expect((await attempts()).map((row) => Number(row.http_status))).toEqual([200]);
    });

    it('removes delivered and failed deliveries older than WEBHOOK_LOG_DAYS, never pending ones', async () => {
      const hook = await hookTo(`${receiver.server.url}/200`);
      const old = await ping(hook.apiKey, hook.id);
      const waiting = await ping(hook.apiKey, hook.id);
      await deliverer.deliverDue(new Date());
      const eightDaysAgo = new Date(Date.now() - 8 * 24 * HOUR)
        .toISOString()
        .slice(0, 19)
        .replace('T', ' ');
      await ds.getRepository(WebhookDelivery).update({ id: old }, { created_at: eightDaysAgo });
      await ds
        .getRepository(WebhookDelivery)
        .update(
          { id: waiting },
          { created_at: eightDaysAgo, status: 'pending', next_attempt_at: '2999-01-01 00:00:00' },
        );

      await deliverer.deliverDue(new Date(Date.now() + 2 * HOUR));

      expect(await ds.getRepository(WebhookDelivery).findOneBy({ id: old })).toBeNull();
      // Its attempts go with it.
      expect(await ds.query('SELECT id FROM webhook_attempt WHERE id_delivery = ?', [old])).toEqual(
        [],
      );
      expect((await delivery(waiting)).status).toBe('pending');
    });
  });
});
