import request, { Response } from 'supertest';
import { hashApiKey } from '../../src/common/auth/api-key';
import { UsersService } from '../../src/users/users.service';
import { describeEachDatabase } from '../support/databases';
import { startApp, TestApp } from '../support/app';
import { makePhone, makeUser } from '../support/factories';

const INVALID_KEY_MESSAGE =
  'Invalid API Key. Please provide a valid API key as GET or POST parameter "api_key" or a HTTP "X-Api-Key".';
const SUSPENDED_MESSAGE = 'This user account is currently suspended.';

/** The envelope (docs/api-choices.md): JSON, exactly these keys in this order. */
function expectEnvelope(response: Response, status: number, error: number): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json\b/);
  expect(Object.keys(response.body)).toEqual(['error', 'message', 'response', 'next', 'prev']);
  expect(response.body.error).toBe(error);
}

function expectRefused(response: Response, status: 401 | 403): void {
  expectEnvelope(response, status, status === 401 ? 1 : 16);
  expect(response.body).toEqual({
    error: status === 401 ? 1 : 16,
    message: status === 401 ? INVALID_KEY_MESSAGE : SUSPENDED_MESSAGE,
    response: null,
    next: null,
    prev: null,
  });
}

describeEachDatabase('authentication (docs/api.md#authentication)', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t.close();
  });

  const listPhones = () => request(t.url).get('/api/list/phone/');

  describe('where the key is read', () => {
    it('accepts a valid key in the query parameter api_key', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await listPhones().query({ api_key: apiKey });

      expectEnvelope(response, 200, 0);
    });

    it('accepts a valid key in the X-Api-Key header', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await listPhones().set('X-Api-Key', apiKey);

      expectEnvelope(response, 200, 0);
    });

    it('does not rescue a bad query key with a good X-Api-Key header', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await listPhones()
        .query({ api_key: '0123456789abcdef0123456789abcdef' })
        .set('X-Api-Key', apiKey);

      expectRefused(response, 401);
    });

    it('does not rescue a malformed query key with a good X-Api-Key header', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await listPhones().query({ api_key: 'nope' }).set('X-Api-Key', apiKey);

      expectRefused(response, 401);
    });

    it('falls through an empty query key (`?api_key=`) to the X-Api-Key header', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await request(t.url)
        .get('/api/list/phone/?api_key=')
        .set('X-Api-Key', apiKey);

      expectEnvelope(response, 200, 0);
    });

    it('refuses a key repeated in the query, even the good one twice', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await request(t.url)
        .get(`/api/list/phone/?api_key=${apiKey}&api_key=${apiKey}`)
        .set('X-Api-Key', apiKey);

      expectRefused(response, 401);
    });

    it('reads a percent-encoded parameter name (`api%5Fkey`) as api_key, as PHP does', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await request(t.url).get(`/api/list/phone/?api%5Fkey=${apiKey}`);

      expectEnvelope(response, 200, 0);
    });

    it('accepts the uppercase version of a key (RaspiSMS compared keys case-insensitively)', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const fromQuery = await listPhones().query({ api_key: apiKey.toUpperCase() });
      const fromHeader = await listPhones().set('X-Api-Key', apiKey.toUpperCase());

      expectEnvelope(fromQuery, 200, 0);
      expectEnvelope(fromHeader, 200, 0);
    });
  });

  describe('who is refused (rules 3 and 4)', () => {
    it('refuses a request without a key with HTTP 401, error 1 and the RaspiSMS message', async () => {
      expectRefused(await listPhones(), 401);
    });

    it('refuses an empty key and an empty header with HTTP 401', async () => {
      expectRefused(await request(t.url).get('/api/list/phone/?api_key='), 401);
      expectRefused(await listPhones().set('X-Api-Key', ''), 401);
    });

    it('refuses a well-formed key that belongs to no user with HTTP 401', async () => {
      expectRefused(await listPhones().query({ api_key: 'ffffffffffffffffffffffffffffffff' }), 401);
    });

    it.each([
      ['too short', '0123456789abcdef'],
      ['too long', '0123456789abcdef0123456789abcdef00'],
      ['not hexadecimal', 'ghijklmnopqrstuvwxyzghijklmnopqr'],
      ['SQL', "' OR '1'='1"],
      ['a JSON text', '{"$ne":null}'],
    ])('refuses a malformed key (%s) with HTTP 401', async (_what, key) => {
      expectRefused(await listPhones().query({ api_key: key }), 401);
      expectRefused(await listPhones().set('X-Api-Key', key), 401);
    });

    it('refuses a user key with one character changed', async () => {
      const { apiKey } = await makeUser(t.dataSource);
      const changed = (apiKey[0] === 'a' ? 'b' : 'a') + apiKey.slice(1);

      expectRefused(await listPhones().query({ api_key: changed }), 401);
    });

    it('refuses a suspended user with HTTP 403, error 16', async () => {
      const { apiKey } = await makeUser(t.dataSource, { status: 'suspended' });

      expectRefused(await listPhones().query({ api_key: apiKey }), 403);
      expectRefused(await listPhones().set('X-Api-Key', apiKey), 403);
    });

    it('authenticates before reading parameters: a bad entry type gives 401 or 403, not 400', async () => {
      const { apiKey } = await makeUser(t.dataSource, { status: 'suspended' });

      expectRefused(await request(t.url).get('/api/list/nope/'), 401);
      expectRefused(await request(t.url).get('/api/list/nope/').query({ api_key: apiKey }), 403);
    });

    it.each([
      ['/api/list/phone'],
      ['/api/list/phone/'],
      ['/api/list/phone/1/'],
      ['/api/list/phone/after/1/'],
      ['/api/list/phone/before/1/'],
      ['/api/list/sended/?page=1'],
    ])('requires a key on every get_entries path: %s', async (path) => {
      expectRefused(await request(t.url).get(path), 401);
    });
  });

  describe('who the caller is (rules 6 and 7)', () => {
    it('lists only the phones of the key’s owner', async () => {
      const owner = await makeUser(t.dataSource);
      const other = await makeUser(t.dataSource);
      const mine = await makePhone(t.dataSource, owner.user.id);
      await makePhone(t.dataSource, other.user.id);

      const response = await listPhones().set('X-Api-Key', owner.apiKey);

      expectEnvelope(response, 200, 0);
      expect(response.body.response.map((phone: { id: number }) => phone.id)).toEqual([mine.id]);
    });

    it('puts the key the caller presented into next and prev links', async () => {
      const { user, apiKey } = await makeUser(t.dataSource);
      for (let i = 0; i < 26; i++) {
        await makePhone(t.dataSource, user.id);
      }
      const presented = apiKey.toUpperCase();

      const first = await listPhones().set('X-Api-Key', presented);

      expectEnvelope(first, 200, 0);
      expect(first.body.response).toHaveLength(25);
      const next = new URL(first.body.next as string);
      expect(next.searchParams.get('api_key')).toBe(presented);

      const second = await request(next.origin).get(next.pathname + next.search);

      expectEnvelope(second, 200, 0);
      expect(second.body.response).toHaveLength(1);
      expect(new URL(second.body.prev as string).searchParams.get('api_key')).toBe(presented);
    });
  });

  describe('keys made by the administration service', () => {
    it('stores a new user’s key only as its SHA-256 hash, and the key works over HTTP', async () => {
      const created = await t.app.get(UsersService).create({ email: 'hash-only@example.test' });

      const response = await listPhones().query({ api_key: created.api_key });

      expectEnvelope(response, 200, 0);
      const rows: Array<Record<string, unknown>> = await t.dataSource.query(
        'SELECT * FROM user WHERE id = ?',
        [created.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].api_key_hash).toBe(hashApiKey(created.api_key));
      expect(Object.keys(rows[0])).not.toContain('api_key');
      const everyUser: Array<Record<string, unknown>> =
        await t.dataSource.query('SELECT * FROM user');
      const everySetting: unknown[] = await t.dataSource.query('SELECT * FROM setting');
      expect(JSON.stringify(everyUser).toLowerCase()).not.toContain(created.api_key);
      expect(JSON.stringify(everySetting).toLowerCase()).not.toContain(created.api_key);
    });

    it('refuses the old key and accepts the new one after a rotation', async () => {
      const users = t.app.get(UsersService);
      const created = await users.create({ email: 'rotating@example.test' });

      const rotated = await users.rotateKey('rotating@example.test');

      expectRefused(await listPhones().query({ api_key: created.api_key }), 401);
      expectEnvelope(await listPhones().query({ api_key: rotated.api_key }), 200, 0);
    });

    it('refuses a user suspended through the service at the next request', async () => {
      const users = t.app.get(UsersService);
      const created = await users.create({ email: 'to-suspend@example.test' });
      expectEnvelope(await listPhones().query({ api_key: created.api_key }), 200, 0);

      await users.setStatus('to-suspend@example.test', 'suspended');

      expectRefused(await listPhones().query({ api_key: created.api_key }), 403);
    });
  });
});
