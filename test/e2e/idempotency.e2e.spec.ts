import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api, ApiClient } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  CANNOT_CREATE,
  expectError,
  expectSuccess,
  INVALID,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
} from '../support/envelope';
import { makePhone, makeUser } from '../support/factories';
import { countRows } from '../support/scheduled.factories';

/*
 * Idempotency keys of get_send_sms and post_scheduled (docs/idempotency.md, docs/api.md rule 2
 * of get_send_sms and rule 11 of post_scheduled) over real HTTP, on every engine: a request
 * repeated with its key creates nothing and gets the first answer again; a key is the caller's;
 * a refused request keeps nothing. Many processes and crashes: test/integration/idempotency-crash.
 */

const HEADER = 'Idempotency-Key';

describeEachDatabase('idempotency keys', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const caller = async (): Promise<{ id: number; client: ApiClient }> => {
    const { user, apiKey } = await makeUser(ds);
    return { id: user.id, client: api(t, apiKey) };
  };
  const messages = (userId: number) =>
    countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled WHERE id_user = ?', [userId]);
  const keys = (userId: number) =>
    countRows(ds, 'SELECT COUNT(*) AS n FROM idempotency_key WHERE id_user = ?', [userId]);
  const replayed = (response: Response) => response.headers['idempotent-replayed'];
  const idOf = (response: Response) => (response.body as { response: number }).response;

  describe('get_send_sms', () => {
    const query = { to: '+33612345678', text: 'Your code is 1234' };

    it('answers a repeated request with the first answer, replayed, and creates one message', async () => {
      const { id: userId, client } = await caller();

      const first = await client.get('/api/send-sms/', query).set(HEADER, 'order-1');
      const second = await client.get('/api/send-sms/', query).set(HEADER, 'order-1');

      expectSuccess(first, 200, expect.any(Number));
      expect(replayed(first)).toBeUndefined();
      expectSuccess(second, 200, idOf(first));
      expect(replayed(second)).toBe('true');
      expect(await messages(userId)).toBe(1);
    });

    it('reads the key from the query as idempotency_key, the same key as the header', async () => {
      const { id: userId, client } = await caller();

      const first = await client.get('/api/send-sms/', { ...query, idempotency_key: 'k' });
      const second = await client.get('/api/send-sms/', query).set(HEADER, 'k');

      expectSuccess(second, 200, idOf(first));
      expect(replayed(second)).toBe('true');
      expect(await messages(userId)).toBe(1);
    });

    it('takes the header over the parameter when both are sent', async () => {
      const { id: userId, client } = await caller();

      const first = await client
        .get('/api/send-sms/', { ...query, idempotency_key: 'from-query' })
        .set(HEADER, 'from-header');
      const byQuery = await client.get('/api/send-sms/', {
        ...query,
        idempotency_key: 'from-query',
      });
      const again = await client.get('/api/send-sms/', {
        ...query,
        idempotency_key: 'from-header',
      });

      expect(replayed(byQuery)).toBeUndefined();
      expectSuccess(again, 200, idOf(first));
      expect(replayed(again)).toBe('true');
      expect(await messages(userId)).toBe(2);
    });

    it('refuses the key with 422 INVALID_PARAMETER for a different request, creating nothing', async () => {
      const { id: userId, client } = await caller();
      await client.get('/api/send-sms/', query).set(HEADER, 'k1');

      const other = await client
        .get('/api/send-sms/', { ...query, text: 'Another text' })
        .set(HEADER, 'k1');

      expectError(
        other,
        422,
        INVALID_PARAMETER,
        `${INVALID}Idempotency-Key : this key was used for a different request (another ` +
          'operation or other parameters) in the last 24 hours; send a new key for a new request.',
      );
      expect(await messages(userId)).toBe(1);
    });

    it('keeps nothing for a refused request: the corrected one creates the message', async () => {
      const { id: userId, client } = await caller();
      const { user: other } = await makeUser(ds);
      const foreign = await makePhone(ds, other.id);

      const missing = await client.get('/api/send-sms/', { to: query.to }).set(HEADER, 'k');
      const refused = await client
        .get('/api/send-sms/', { ...query, id_phone: String(foreign.id) })
        .set(HEADER, 'k');
      const corrected = await client.get('/api/send-sms/', query).set(HEADER, 'k');

      expect(missing.body).toMatchObject({ error: MISSING_PARAMETER });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ error: CANNOT_CREATE });
      expectSuccess(corrected, 200, expect.any(Number));
      expect(replayed(corrected)).toBeUndefined();
      expect(await messages(userId)).toBe(1);
      expect(await keys(userId)).toBe(1);
    });

    it('keeps keys per user: two users with one key get a message each', async () => {
      const a = await caller();
      const b = await caller();

      const first = await a.client.get('/api/send-sms/', query).set(HEADER, 'shared');
      const second = await b.client.get('/api/send-sms/', query).set(HEADER, 'shared');

      expect(replayed(second)).toBeUndefined();
      expect(idOf(second)).not.toBe(idOf(first));
      expect([await messages(a.id), await messages(b.id)]).toEqual([1, 1]);
    });

    it.each<[string, { header?: string; param?: string }, string, string]>([
      ['an empty header', { header: '' }, 'Idempotency-Key', 'an empty value'],
      ['a 256-character header', { header: 'k'.repeat(256) }, 'Idempotency-Key', '256 characters'],
      [
        'a parameter with a character beyond ASCII',
        { param: 'clé' },
        'idempotency_key',
        'a character outside that range',
      ],
      [
        'a parameter with a control character',
        { param: 'a\tb' },
        'idempotency_key',
        'a character outside that range',
      ],
      [
        'a bad header beside a good parameter',
        { header: 'é', param: 'fine' },
        'Idempotency-Key',
        'a character outside that range',
      ],
    ])(
      'refuses %s with INVALID_PARAMETER naming it, creating nothing',
      async (_case, sent, name, got) => {
        const { id: userId, client } = await caller();
        const params = sent.param === undefined ? query : { ...query, idempotency_key: sent.param };
        const request = client.get('/api/send-sms/', params);

        const response = await (sent.header === undefined
          ? request
          : request.set(HEADER, sent.header));

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}${name} : a key must be 1 to 255 printable ASCII characters (space to ~), ` +
            `got ${got}.`,
        );
        expect(await messages(userId)).toBe(0);
      },
    );

    it('accepts 255 printable characters, spaces and symbols included', async () => {
      const { client } = await caller();
      const key = ` !~${'x'.repeat(252)}`;

      const first = await client.get('/api/send-sms/', query).set(HEADER, key);
      const second = await client.get('/api/send-sms/', query).set(HEADER, key);

      expectSuccess(second, 200, idOf(first));
    });

    it('tells keys apart by case', async () => {
      const { id: userId, client } = await caller();

      await client.get('/api/send-sms/', query).set(HEADER, 'Key');
      const other = await client.get('/api/send-sms/', query).set(HEADER, 'KEY');

      expect(replayed(other)).toBeUndefined();
      expect(await messages(userId)).toBe(2);
    });

    it('replays a message the dispatch has already taken (its row gone)', async () => {
      const { client } = await caller();
      const first = await client.get('/api/send-sms/', query).set(HEADER, 'sent');
      await ds.query('DELETE FROM scheduled WHERE id = ?', [idOf(first)]);

      const again = await client.get('/api/send-sms/', query).set(HEADER, 'sent');

      expectSuccess(again, 200, idOf(first));
      expect(replayed(again)).toBe('true');
    });

    it('frees an expired key: the request creates a new message', async () => {
      const { id: userId, client } = await caller();
      const first = await client.get('/api/send-sms/', query).set(HEADER, 'old');
      const [row] = await ds.query<Array<{ created_at: string; expires_at: string }>>(
        'SELECT created_at, expires_at FROM idempotency_key WHERE id_user = ?',
        [userId],
      );
      const hours =
        (Date.parse(`${String(row.expires_at).slice(0, 19)}Z`) -
          Date.parse(`${String(row.created_at).slice(0, 19)}Z`)) /
        3_600_000;
      // Aged past its expiry, as IDEMPOTENCY_HOURS later.
      await ds.query(
        "UPDATE idempotency_key SET expires_at = '2001-01-01 00:00:00' WHERE id_user = ?",
        [userId],
      );

      const later = await client
        .get('/api/send-sms/', { ...query, text: 'Another text' })
        .set(HEADER, 'old');
      const again = await client
        .get('/api/send-sms/', { ...query, text: 'Another text' })
        .set(HEADER, 'old');

      expect(hours).toBe(24);
      expectSuccess(later, 200, expect.any(Number));
      expect(idOf(later)).not.toBe(idOf(first));
      expect(replayed(later)).toBeUndefined();
      expectSuccess(again, 200, idOf(later));
      expect(await messages(userId)).toBe(2);
      expect(await keys(userId)).toBe(1);
    });

    it('creates one message for many concurrent requests with one key, all answered with it', async () => {
      const { id: userId, client } = await caller();

      const answers = await Promise.all(
        Array.from({ length: 30 }, () => client.get('/api/send-sms/', query).set(HEADER, 'burst')),
      );

      const ids = new Set(answers.filter((a) => a.status === 200).map(idOf));
      const others = answers.filter((a) => a.status !== 200);
      expect(ids.size).toBe(1);
      for (const answer of others) {
        expectError(answer, 409, CANNOT_CREATE, /the first request with this key is still/);
      }
      expect(answers.filter((a) => replayed(a) === undefined && a.status === 200)).toHaveLength(1);
      expect(await messages(userId)).toBe(1);
    });
  });

  it('documents the header, the parameter and the replay header in the OpenAPI document', async () => {
    interface Operation {
      parameters?: Array<{ name: string; in: string }>;
      requestBody?: { content: Record<string, { schema: { properties: object } }> };
      responses: Record<string, { headers?: Record<string, unknown> }>;
    }
    const document = (await request(t.url).get('/api/docs-json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const sendSms = document.paths['/api/send-sms'].get;
    const post = document.paths['/api/scheduled'].post;
    const update = document.paths['/api/scheduled/{id}'].post;

    for (const operation of [sendSms, post]) {
      expect(operation.parameters).toContainEqual(
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
      );
      expect(operation.responses[operation === post ? '201' : '200'].headers).toHaveProperty(
        'Idempotent-Replayed',
      );
      expect(operation.responses['409']).toBeDefined();
    }
    expect(sendSms.parameters).toContainEqual(
      expect.objectContaining({ name: 'idempotency_key', in: 'query' }),
    );
    expect(post.requestBody?.content['application/json'].schema.properties).toHaveProperty(
      'idempotency_key',
    );
    expect(update.requestBody?.content['application/json'].schema.properties).not.toHaveProperty(
      'idempotency_key',
    );
  });

  describe('post_scheduled', () => {
    const body = {
      text: 'Meeting at 10',
      at: '2030-01-02 03:04:05',
      numbers: ['+33612345678', '+33612345679'],
      flash: true,
    };

    it('replays the first answer, 201 and the same id, whatever the body type', async () => {
      const { id: userId, client } = await caller();

      const first = await client.json('/api/scheduled/', { ...body, idempotency_key: 'p1' });
      const asForm = await client
        .form('/api/scheduled/')
        .send(
          'text=Meeting+at+10&at=2030-01-02+03%3A04%3A05&numbers[]=%2B33612345678' +
            '&numbers[]=%2B33612345679&flash=1&idempotency_key=p1',
        );

      expectSuccess(first, 201, expect.any(Number));
      expectSuccess(asForm, 201, idOf(first));
      expect(replayed(asForm)).toBe('true');
      expect(await messages(userId)).toBe(1);
    });

    it('treats a message without `at` as the same request later on', async () => {
      const { id: userId, client } = await caller();
      const { at: _at, ...now } = body;

      const first = await client.json('/api/scheduled/', now).set(HEADER, 'no-at');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const second = await client.json('/api/scheduled/', now).set(HEADER, 'no-at');

      expectSuccess(second, 201, idOf(first));
      expect(await messages(userId)).toBe(1);
    });

    it('tells requests apart by every parameter, and a key of get_send_sms from it', async () => {
      const { id: userId, client } = await caller();
      await client.json('/api/scheduled/', body).set(HEADER, 'p2');
      await client.get('/api/send-sms/', { to: '+33612345678', text: 'x' }).set(HEADER, 's1');

      const notFlash = await client
        .json('/api/scheduled/', { ...body, flash: false })
        .set(HEADER, 'p2');
      const otherOperation = await client.json('/api/scheduled/', body).set(HEADER, 's1');

      expect([notFlash.status, otherOperation.status]).toEqual([422, 422]);
      expect(notFlash.body).toMatchObject({ error: INVALID_PARAMETER });
      expect(otherOperation.body).toMatchObject({ error: INVALID_PARAMETER });
      expect(await messages(userId)).toBe(2);
    });

    it('compares the uploaded CSV by its content', async () => {
      const { id: userId, client } = await caller();
      const upload = (csv: string, name: string) =>
        client
          .post('/api/scheduled/')
          .set(HEADER, 'csv')
          .field('text', 'Hi')
          .attach('numbers_csv', Buffer.from(csv), name);

      const first = await upload('number\n+33612345678\n', 'a.csv');
      const sameContent = await upload('number\n+33612345678\n', 'renamed.csv');
      const otherContent = await upload('number\n+33612345670\n', 'a.csv');

      expectSuccess(first, 201, expect.any(Number));
      expectSuccess(sameContent, 201, idOf(first));
      expect(replayed(sameContent)).toBe('true');
      expect(otherContent.status).toBe(422);
      expect(await messages(userId)).toBe(1);
    });

    it('checks the key after the other rules: a refused request keeps nothing', async () => {
      const { id: userId, client } = await caller();

      const noRecipient = await client
        .json('/api/scheduled/', { text: 'Hi', idempotency_key: 'later' })
        .set(HEADER, 'é');
      const fixed = await client.json('/api/scheduled/', body).set(HEADER, 'later');

      expect(noRecipient.body).toMatchObject({ error: MISSING_PARAMETER });
      expectSuccess(fixed, 201, expect.any(Number));
      expect(replayed(fixed)).toBeUndefined();
      expect(await messages(userId)).toBe(1);
    });
  });
});
