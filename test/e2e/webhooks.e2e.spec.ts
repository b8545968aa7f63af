import request from 'supertest';
import { DataSource } from 'typeorm';
import { Webhook } from '../../src/webhooks/entities/webhook.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import {
  CANNOT_CREATE,
  CANNOT_DELETE,
  CANNOT_UPDATE,
  expectError,
  expectSuccess,
  INVALID,
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING,
  MISSING_PARAMETER,
} from '../support/envelope';

/*
 * The webhook resource over real HTTP against the real app, on every database engine: its rules
 * in order, generated and given secrets of both formats, the outbound policy on its URL, the
 * limit of 100 per user, and another user's webhooks answering as missing ones.
 */

/** A documentation address (TEST-NET-3): public, so allowed, and literal, so nothing is resolved. */
const HOOK = 'https://203.0.113.10/smsgw';
const STANDARD_SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

describeEachDatabase('webhooks', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    // Every URL here holds a literal address: the policy checks it without a DNS lookup.
    t = await startApp(database(), { OUTBOUND_BLOCK_PRIVATE: 'true' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const rows = (id_user: number) =>
    ds.getRepository(Webhook).find({ where: { id_user }, order: { id: 'ASC' } });

  describe('post_webhook', () => {
    it('creates a raspisms webhook with a generated 32-hex secret, enabled, and reads it back', async () => {
      const { user, apiKey } = await makeUser(ds);

      const created = await api(t, apiKey).post('/api/webhook/').send({
        url: HOOK,
        type: 'receive_sms',
      });

      expect(created.status).toBe(201);
      const id = created.body.response as number;
      const read = await api(t, apiKey).get(`/api/webhook/${id}/`);
      const [row] = await rows(user.id);
      expect(row.secret).toMatch(/^[0-9a-f]{32}$/);
      expectSuccess(read, 200, {
        id,
        id_user: user.id,
        url: HOOK,
        type: 'receive_sms',
        format: 'raspisms',
        secret: row.secret,
        enabled: true,
        created_at: row.created_at,
        updated_at: null,
      });
    });

    it('generates a standard secret, whsec_ and the base64 of 24 bytes, and keeps a given one', async () => {
      const { user, apiKey } = await makeUser(ds);

      await api(t, apiKey)
        .post('/api/webhook/')
        .send({ url: HOOK, type: 'send_sms', format: 'standard' })
        .expect(201);
      await api(t, apiKey)
        .post('/api/webhook/')
        .type('form')
        .send({
          url: HOOK,
          type: 'quota',
          format: 'standard',
          secret: STANDARD_SECRET,
          enabled: '0',
        })
        .expect(201);

      const [generated, given] = await rows(user.id);
      expect(generated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect(Buffer.from(generated.secret.slice(6), 'base64')).toHaveLength(24);
      expect([given.secret, given.enabled]).toEqual([STANDARD_SECRET, 0]);
    });

    it.each([
      [{ type: 'send_sms' }, MISSING_PARAMETER, `${MISSING}url is required.`],
      [{ url: HOOK }, MISSING_PARAMETER, `${MISSING}type is required.`],
      [
        { url: 'ftp://203.0.113.10/', type: 'send_sms' },
        INVALID_PARAMETER,
        `${INVALID}url must be an http or https URL, not ftp.`,
      ],
      [
        { url: '/relative', type: 'send_sms' },
        INVALID_PARAMETER,
        `${INVALID}url must be an absolute http or https URL.`,
      ],
      [
        { url: `${HOOK}?${'a'.repeat(2048)}`, type: 'send_sms' },
        INVALID_PARAMETER,
        `${INVALID}url must be at most 2048 characters long.`,
      ],
      [
        { url: 'https://user:pass@203.0.113.10/', type: 'send_sms' },
        INVALID_PARAMETER,
        `${INVALID}url must not hold a user name or password.`,
      ],
      [{ url: [HOOK], type: 'send_sms' }, INVALID_PARAMETER, `${INVALID}url must be a string.`],
      [
        { url: HOOK, type: 'sms' },
        INVALID_PARAMETER,
        `${INVALID}type must be one of : send_sms, send_sms_status_change, receive_sms, phone_reliability, quota.`,
      ],
      [
        { url: HOOK, type: 'send_sms', format: 'json' },
        INVALID_PARAMETER,
        `${INVALID}format must be one of : raspisms, standard.`,
      ],
      [
        { url: HOOK, type: 'send_sms', secret: 'short' },
        INVALID_PARAMETER,
        `${INVALID}secret : a raspisms webhook's secret is 16 to 128 printable ASCII characters, without spaces (omit it to have one generated).`,
      ],
      [
        { url: HOOK, type: 'send_sms', format: 'standard', secret: 'whsec_c2hvcnQ=' },
        INVALID_PARAMETER,
        `${INVALID}secret : a standard webhook's secret is "whsec_" followed by the base64 of at least 24 bytes (omit it to have one generated).`,
      ],
      [
        { url: HOOK, type: 'send_sms', secret: { a: 1 } },
        INVALID_PARAMETER,
        `${INVALID}secret must be a string.`,
      ],
      [
        { url: HOOK, type: 'send_sms', enabled: 'maybe' },
        INVALID_PARAMETER,
        `${INVALID}enabled must be a boolean (1, true, on, yes, 0, false, off or no), got "maybe".`,
      ],
    ])('refuses %s, writing nothing', async (body, code, message) => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).post('/api/webhook/').send(body);

      expectError(response, 400, code, message);
      expect(await rows(user.id)).toEqual([]);
    });

    it.each([
      ['http://127.0.0.1:8080/hook', 'the address 127.0.0.1 is refused', 'loopback'],
      ['http://169.254.169.254/latest', 'the address 169.254.169.254 is refused', 'link-local'],
      ['http://[::1]/hook', 'the address ::1 is refused', 'loopback'],
    ])("refuses %s by the server's outbound policy, naming url", async (url, what, range) => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).post('/api/webhook/').send({ url, type: 'send_sms' });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}url : ${what} by the server's outbound policy (${range}); an operator can allow it with OUTBOUND_ALLOW.`,
      );
      expect(await rows(user.id)).toEqual([]);
    });

    it('refuses a 101st webhook with 422 CANNOT_CREATE, also when the creations race', async () => {
      const { user, apiKey } = await makeUser(ds);
      await ds.getRepository(Webhook).insert(
        Array.from({ length: 95 }, () => ({
          id_user: user.id,
          url: HOOK,
          type: 'send_sms',
          format: 'raspisms',
          secret: '0123456789abcdef0123456789abcdef',
          enabled: 1,
          created_at: '2026-01-01 00:00:00',
        })),
      );

      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'receive_sms' }),
        ),
      );

      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
      for (const refused of answers.filter((answer) => answer.status !== 201)) {
        expectError(
          refused,
          422,
          CANNOT_CREATE,
          'Cannot create a new entry. You have 100 webhooks already, the most a user may have.',
        );
      }
      expect(await rows(user.id)).toHaveLength(100);
    });

    it('answers 401 without a key, writing nothing', async () => {
      const response = await request(t.url)
        .post('/api/webhook/')
        .send({ url: HOOK, type: 'quota' });

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
    });
  });

  describe('get_webhooks, post_update_webhook, delete_webhook', () => {
    it("lists the caller's webhooks only, by id", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { apiKey: otherKey } = await makeUser(ds);
      await api(t, otherKey).post('/api/webhook/').send({ url: HOOK, type: 'quota' }).expect(201);
      for (const type of ['send_sms', 'quota']) {
        await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type }).expect(201);
      }

      const response = await api(t, apiKey).get('/api/webhook/');

      expect(response.status).toBe(200);
      const listed = response.body.response as Array<{ id_user: number; type: string }>;
      expect(listed.map(({ id_user, type }) => [id_user, type])).toEqual([
        [user.id, 'send_sms'],
        [user.id, 'quota'],
      ]);
    });

    it('updates the fields sent; a new format gets a secret that fits it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = (await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'send_sms' }))
        .body.response as number;

      const disabled = await api(t, apiKey)
        .post(`/api/webhook/${id}/`)
        .type('form')
        .send({ enabled: 'false', type: 'receive_sms' });
      const restyled = await api(t, apiKey).post(`/api/webhook/${id}/`).send({
        format: 'standard',
      });

      expect(disabled.status).toBe(200);
      expect(disabled.body.response).toMatchObject({ type: 'receive_sms', enabled: false });
      const [row] = await rows(user.id);
      expect(row.secret).toMatch(/^whsec_/);
      expect(restyled.body.response).toMatchObject({
        id,
        format: 'standard',
        secret: row.secret,
        url: HOOK,
        type: 'receive_sms',
        enabled: false,
      });
    });

    it('refuses an update whose secret does not fit the format, or whose url is refused, changing nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = (await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'send_sms' }))
        .body.response as number;
      const before = await rows(user.id);

      const secret = await api(t, apiKey).post(`/api/webhook/${id}/`).send({
        format: 'standard',
        secret: 'not-a-standard-secret',
      });
      const url = await api(t, apiKey).post(`/api/webhook/${id}/`).send({
        url: 'http://10.0.0.1/hook',
      });

      expect(secret.status).toBe(400);
      expect(secret.body.message).toMatch(/^You have specified an invalid parameter : secret : /);
      expect(url.status).toBe(400);
      expect(url.body.message).toMatch(/^You have specified an invalid parameter : url : /);
      expect(await rows(user.id)).toEqual(before);
    });

    it("answers another user's webhook exactly as a missing one, and leaves it alone", async () => {
      const { user: other, apiKey: otherKey } = await makeUser(ds);
      const theirs = (
        await api(t, otherKey).post('/api/webhook/').send({ url: HOOK, type: 'quota' })
      ).body.response as number;
      const { apiKey } = await makeUser(ds);
      const before = await rows(other.id);

      for (const id of [theirs, theirs + 100_000]) {
        expectError(
          await api(t, apiKey).get(`/api/webhook/${id}/`),
          404,
          INVALID_PARAMETER,
          `${INVALID}id : you have no webhook ${id}.`,
        );
        expectError(
          await api(t, apiKey).post(`/api/webhook/${id}/`).send({ enabled: 0 }),
          404,
          CANNOT_UPDATE,
          `Cannot update this entry : id : you have no webhook ${id}.`,
        );
        expectError(
          await api(t, apiKey).delete(`/api/webhook/${id}/`),
          404,
          CANNOT_DELETE,
          `Cannot delete this entry. id : you have no webhook ${id}.`,
        );
      }
      expect(await rows(other.id)).toEqual(before);
    });

    it('deletes a webhook', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = (await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'quota' }))
        .body.response as number;

      expectSuccess(await api(t, apiKey).delete(`/api/webhook/${id}/`), 200, true);
      expect(await rows(user.id)).toEqual([]);
    });

    it.each(['abc', '-1', '1.5', '99999999999'])(
      'refuses the id %s with INVALID_PARAMETER',
      async (id) => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).get(`/api/webhook/${id}/`);

        expect(response.status).toBe(400);
        expect(response.body.error).toBe(INVALID_PARAMETER);
        expect(response.body.message).toMatch(/^You have specified an invalid parameter : id /);
      },
    );
  });

  describe('post_webhook_test, get_webhook_deliveries', () => {
    it('queues a ping, pending, that the log lists newest first, 25 per page with links', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = (await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'quota' }))
        .body.response as number;

      const pings: number[] = [];
      for (let i = 0; i < 26; i += 1) {
        const answer = await api(t, apiKey).post(`/api/webhook/${id}/test/`);
        expect(answer.status).toBe(200);
        pings.push(answer.body.response as number);
      }
      const first = await api(t, apiKey).get(`/api/webhook/${id}/deliveries/`);
      const second = await api(t, apiKey).get(`/api/webhook/${id}/deliveries/?page=1`);

      expect(first.status).toBe(200);
      const listed = first.body.response as Array<Record<string, unknown>>;
      expect(listed.map((row) => row.id)).toEqual(pings.slice(1).reverse());
      expect(listed[0]).toEqual({
        id: pings[25],
        event_type: 'ping',
        status: 'pending',
        attempts: 0,
        last_http_status: null,
        last_error: null,
        last_answer: null,
        next_attempt_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        updated_at: null,
        delivered_at: null,
        attempt_log: [],
        attempt_log_total: 0,
      });
      expect(first.body.next).toMatch(
        new RegExp(`/api/webhook/${id}/deliveries/\\?page=1&api_key=${apiKey}$`),
      );
      expect(first.body.prev).toBeNull();
      expect((second.body.response as Array<{ id: number }>).map((row) => row.id)).toEqual([
        pings[0],
      ]);
      expect(second.body.next).toBeNull();
      expect(second.body.prev).toMatch(/deliveries\/\?page=0&api_key=/);
      const [stored] = await ds.query<
        Array<{ payload: string; event_id: string; id_user: number }>
      >('SELECT payload, event_id, id_user FROM webhook_delivery WHERE id = ?', [pings[0]]);
      expect([stored.payload, Number(stored.id_user)]).toEqual(['{}', user.id]);
      expect(stored.event_id).toMatch(/^\d+-[0-9a-f]{32}$/);
    });

    it('refuses to test a disabled webhook with 422 CANNOT_CREATE, queueing nothing', async () => {
      const { apiKey } = await makeUser(ds);
      const id = (
        await api(t, apiKey).post('/api/webhook/').send({ url: HOOK, type: 'quota', enabled: 0 })
      ).body.response as number;

      expectError(
        await api(t, apiKey).post(`/api/webhook/${id}/test/`),
        422,
        CANNOT_CREATE,
        `Cannot create a new entry. Webhook ${id} is disabled: enable it (enabled=1) to test it.`,
      );
      expectSuccess(await api(t, apiKey).get(`/api/webhook/${id}/deliveries/`), 200, []);
    });

    it("answers another user's webhook as a missing one, and shows nothing of its log", async () => {
      const { apiKey: otherKey } = await makeUser(ds);
      const theirs = (
        await api(t, otherKey).post('/api/webhook/').send({ url: HOOK, type: 'quota' })
      ).body.response as number;
      await api(t, otherKey).post(`/api/webhook/${theirs}/test/`).expect(200);
      const { apiKey } = await makeUser(ds);

      for (const path of [`/api/webhook/${theirs}/deliveries/`, `/api/webhook/${theirs}/test/`]) {
        const caller = api(t, apiKey);
        const response = await (path.endsWith('test/') ? caller.post(path) : caller.get(path));
        expectError(
          response,
          404,
          INVALID_PARAMETER,
          `${INVALID}id : you have no webhook ${theirs}.`,
        );
      }
      const deliveries = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM webhook_delivery WHERE id_webhook = ?',
        [theirs],
      );
      expect(Number(deliveries[0].n)).toBe(1);
    });
  });
});
