import request, { Response } from 'supertest';
import { hashToken } from '../../src/sessions/sessions.service';
import { User } from '../../src/users/entities/user.entity';
import { hashPassword } from '../../src/users/password';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource, startApp, TestApp } from '../support/app';
import { BuiltApp, requireBuild, startBuiltApp } from '../support/built-app';
import {
  createTestDatabase,
  DATABASE_KINDS,
  describeEachDatabase,
  TestDatabase,
} from '../support/databases';
import { makeContact, makeUser } from '../support/factories';

const PASSWORD = 'correct horse battery';
const CSRF_MESSAGE =
  /^The console's security token \(the X-CSRF-Token header\) is missing or wrong/;

describeEachDatabase('console sessions (docs/api.md#sessions)', (database) => {
  let t: TestApp;
  let sequence = 0;

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t.close();
  });

  /** A user with a password (or none), and their key. */
  async function aUser(
    options: { password?: string | null; status?: 'active' | 'suspended' } = {},
  ) {
    const email = `session${++sequence}@example.test`;
    const { user, apiKey } = await makeUser(t.dataSource, {
      email,
      status: options.status ?? 'active',
    });
    const password = options.password === undefined ? PASSWORD : options.password;
    if (password !== null) {
      await t.dataSource
        .getRepository(User)
        .update({ id: user.id }, { password_hash: await hashPassword(password) });
    }
    return { id: user.id, email, apiKey };
  }

  const login = (email: string, password: string, headers: Record<string, string> = {}) =>
    request(t.url).post('/api/login/').set(headers).send({ email, password });

  /** Signs in; the cookie to send back and the CSRF token. */
  async function signIn(email: string) {
    const response = await login(email, PASSWORD);
    expect(response.status).toBe(200);
    const cookie = (response.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    return { cookie, csrf: response.body.response.csrf_token as string, response };
  }

  const sessionRow = async (cookie: string) =>
    t.dataSource.query<Array<{ id: number }>>('SELECT id FROM session WHERE token_hash = ?', [
      hashToken(cookie.split('=')[1]),
    ]);

  function expectCredentialsError(response: Response, status: number, message: string | RegExp) {
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(1);
    expect(response.body.message).toMatch(message);
    expect(response.body.response).toBeNull();
  }

  describe('login', () => {
    it('answers the user, a CSRF token and the expiry, and sets an HttpOnly SameSite=Strict cookie', async () => {
      const user = await aUser();
      const { response, cookie } = await signIn(user.email);

      expect(response.body).toMatchObject({ error: 0, next: null, prev: null });
      expect(response.body.response).toEqual({
        user: {
          id: user.id,
          email: user.email,
          admin: false,
          status: 'active',
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        },
        csrf_token: expect.stringMatching(/^[\w-]{43}$/),
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        time_zone: t.config.timeZone,
      });
      const setCookie = (response.headers['set-cookie'] as unknown as string[])[0];
      expect(setCookie).toMatch(/^smsgw_session=[\w-]{43}; /);
      expect(setCookie.split('; ').slice(1)).toEqual([
        `Max-Age=${14 * 86400}`,
        'Path=/',
        'HttpOnly',
        'SameSite=Strict',
      ]);
      // Only the token's hash is stored.
      expect(await sessionRow(cookie)).toHaveLength(1);
      const stored = JSON.stringify(await t.dataSource.query('SELECT * FROM session'));
      expect(stored).not.toContain(cookie.split('=')[1]);
    });

    it('answers a wrong password, an unknown e-mail and a user without a password alike: 401', async () => {
      const user = await aUser();
      const bare = await aUser({ password: null });
      for (const [email, password] of [
        [user.email, 'wrong password!'],
        ['nobody@example.test', PASSWORD],
        [bare.email, PASSWORD],
      ]) {
        const response = await login(email, password);
        expectCredentialsError(response, 401, /^Invalid email or password\.$/);
        expect(response.headers['set-cookie']).toBeUndefined();
      }
    });

    it('refuses a suspended user with the right password with 403 (error 16), and a wrong one with 401', async () => {
      const user = await aUser({ status: 'suspended' });
      const right = await login(user.email, PASSWORD);
      expect(right.status).toBe(403);
      expect(right.body.error).toBe(16);
      expectCredentialsError(await login(user.email, 'wrong password!'), 401, /^Invalid email/);
    });

    it('refuses a sign-in from another origin, and Origin: null, with 403 (error 1)', async () => {
      const user = await aUser();
      for (const origin of ['http://evil.example', 'null']) {
        const response = await login(user.email, PASSWORD, { Origin: origin });
        expectCredentialsError(response, 403, /own origin/);
        expect(response.headers['set-cookie']).toBeUndefined();
      }
      const host = new URL(t.url).host;
      expect((await login(user.email, PASSWORD, { Origin: `http://${host}` })).status).toBe(200);
    });

    it('names the missing fields with MISSING_PARAMETER', async () => {
      const response = await request(t.url).post('/api/login/').send({ email: 'a@b.c' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(4);
      expect(response.body.message).toMatch(/password is required/);
    });

    it('sets Secure on the cookie when SESSION_COOKIE_SECURE=true, and Path to BASE_PATH', async () => {
      const other = await startApp(database(), {
        SESSION_COOKIE_SECURE: 'true',
        BASE_PATH: '/raspisms',
      });
      try {
        const user = await aUser();
        const response = await request(other.url)
          .post('/raspisms/api/login/')
          .send({ email: user.email, password: PASSWORD });
        const setCookie = (response.headers['set-cookie'] as unknown as string[])[0];
        expect(setCookie).toContain('; Path=/raspisms;');
        expect(setCookie).toMatch(/; Secure$/);
      } finally {
        await other.close();
      }
    });

    it.each(['true', '1'])(
      'sets Secure on the cookie of a request forwarded over HTTPS when TRUST_PROXY=%s',
      async (trustProxy) => {
        const proxied = await startApp(database(), { TRUST_PROXY: trustProxy });
        try {
          const user = await aUser();
          const forwarded = (proto: string) =>
            request(proxied.url)
              .post('/api/login/')
              .set('X-Forwarded-Proto', proto)
              .send({ email: user.email, password: PASSWORD });
          const overHttps = await forwarded('https');
          expect(overHttps.status).toBe(200);
          expect((overHttps.headers['set-cookie'] as unknown as string[])[0]).toMatch(/; Secure$/);
          const overHttp = await forwarded('http');
          expect((overHttp.headers['set-cookie'] as unknown as string[])[0]).not.toContain(
            'Secure',
          );
          // The console's own origin is the one the proxy forwarded: https.
          const host = new URL(proxied.url).host;
          const sameOrigin = await forwarded('https').set('Origin', `https://${host}`);
          expect(sameOrigin.status).toBe(200);
        } finally {
          await proxied.close();
        }
      },
    );

    it('ignores X-Forwarded-Proto without TRUST_PROXY: no Secure on the cookie', async () => {
      const user = await aUser();
      const response = await login(user.email, PASSWORD, { 'X-Forwarded-Proto': 'https' });
      expect(response.status).toBe(200);
      expect((response.headers['set-cookie'] as unknown as string[])[0]).not.toContain('Secure');
      // Nor is it taken for the console's origin.
      const host = new URL(t.url).host;
      const asHttps = await login(user.email, PASSWORD, {
        'X-Forwarded-Proto': 'https',
        Origin: `https://${host}`,
      });
      expect(asHttps.status).toBe(403);
    });
  });

  describe('authentication by the session', () => {
    it('answers GET /api/session/ for the session, and 401 for a key without a session', async () => {
      const user = await aUser();
      const { cookie, csrf } = await signIn(user.email);
      const response = await request(t.url).get('/api/session/').set('Cookie', cookie);
      expect(response.status).toBe(200);
      expect(response.body.response.csrf_token).toBe(csrf);
      expect(response.body.response.user.email).toBe(user.email);
      const byKey = await request(t.url).get('/api/session/').set('X-Api-Key', user.apiKey);
      expect(byKey.status).toBe(401);
      expect((await request(t.url).get('/api/session/')).status).toBe(401);
    });

    it('tells the service time zone, the zone of the dates it answers', async () => {
      const elsewhere = await startApp(database(), { TZ: 'Asia/Kolkata' });
      try {
        const user = await aUser();
        const response = await request(elsewhere.url)
          .post('/api/login/')
          .send({ email: user.email, password: PASSWORD });
        const cookie = (response.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
        const session = await request(elsewhere.url).get('/api/session/').set('Cookie', cookie);
        expect(session.body.response.time_zone).toBe('Asia/Kolkata');
        // The session is seconds old: its idle end is 12 hours on, written in that zone.
        const idleEnd = (at: number) =>
          new Date(at + 720 * 60_000)
            .toLocaleString('sv-SE', { timeZone: 'Asia/Kolkata' })
            .slice(0, 16);
        expect([idleEnd(Date.now() - 60_000), idleEnd(Date.now())]).toContain(
          session.body.response.expires_at.slice(0, 16),
        );
      } finally {
        await elsewhere.close();
      }
    });

    it('lets a key decide over the session, even a wrong one', async () => {
      const user = await aUser();
      const { cookie } = await signIn(user.email);
      const wrong = await request(t.url)
        .get('/api/list/contact/')
        .set('Cookie', cookie)
        .query({ api_key: '0123456789abcdef0123456789abcdef' });
      expect(wrong.status).toBe(401);
      expect((await request(t.url).get('/api/list/contact/').set('Cookie', cookie)).status).toBe(
        200,
      );
    });

    it('refuses a session POST, DELETE and GET /api/send-sms/ without the right X-CSRF-Token, doing nothing', async () => {
      const user = await aUser();
      const { cookie, csrf } = await signIn(user.email);
      const contact = await makeContact(t.dataSource, user.id, {
        name: 'Kept',
        number: '+33612345678',
      });
      const attempts = [
        request(t.url)
          .post('/api/contact/')
          .set('Cookie', cookie)
          .send({ name: 'X', number: '+33611111111' }),
        request(t.url)
          .post('/api/contact/')
          .set('Cookie', cookie)
          .set('X-CSRF-Token', 'nope')
          .send({ name: 'X', number: '+33611111111' }),
        request(t.url).delete(`/api/contact/${contact.id}/`).set('Cookie', cookie),
        request(t.url)
          .get('/api/send-sms/')
          .set('Cookie', cookie)
          .query({ text: 'hi', to: '+33611111111' }),
      ];
      for (const response of await Promise.all(attempts)) {
        expectCredentialsError(response, 403, CSRF_MESSAGE);
      }
      const contacts = await t.dataSource.query<unknown[]>(
        'SELECT id FROM contact WHERE id_user = ?',
        [user.id],
      );
      expect(contacts).toHaveLength(1);
      const scheduled = await t.dataSource.query<unknown[]>(
        'SELECT id FROM scheduled WHERE id_user = ?',
        [user.id],
      );
      expect(scheduled).toHaveLength(0);

      const created = await request(t.url)
        .post('/api/contact/')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf)
        .send({ name: 'X', number: '+33611111111' });
      expect(created.body.error).toBe(0);
      const deleted = await request(t.url)
        .delete(`/api/contact/${contact.id}/`)
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf);
      expect(deleted.body.error).toBe(0);
    });

    it('gives session callers next/prev links without an api_key, and key callers links with theirs', async () => {
      const user = await aUser();
      const { cookie } = await signIn(user.email);
      for (let i = 0; i < 26; i++) {
        await makeContact(t.dataSource, user.id, { name: `c${i}`, number: `+336120000${10 + i}` });
      }
      const bySession = await request(t.url).get('/api/list/contact/').set('Cookie', cookie);
      expect(bySession.body.next).toEqual(expect.any(String));
      expect(bySession.body.next).not.toContain('api_key');
      const byKey = await request(t.url).get('/api/list/contact/').query({ api_key: user.apiKey });
      expect(byKey.body.next).toContain(`api_key=${user.apiKey}`);
    });

    it('answers 403 (error 16) at the first request after a suspension and ends the session', async () => {
      const user = await aUser();
      const { cookie } = await signIn(user.email);
      await t.dataSource.getRepository(User).update({ id: user.id }, { status: 'suspended' });
      const response = await request(t.url).get('/api/session/').set('Cookie', cookie);
      expect(response.status).toBe(403);
      expect(response.body.error).toBe(16);
      expect(await sessionRow(cookie)).toHaveLength(0);
      await t.dataSource.getRepository(User).update({ id: user.id }, { status: 'active' });
      expect((await request(t.url).get('/api/session/').set('Cookie', cookie)).status).toBe(401);
    });

    it('ends a session idle longer than SESSION_IDLE_MINUTES, and one older than SESSION_MAX_DAYS', async () => {
      const user = await aUser();
      const idle = await signIn(user.email);
      const old = await signIn(user.email);
      await t.dataSource.query(
        "UPDATE session SET last_used_at = '2000-01-01 00:00:00' WHERE id = ?",
        [(await sessionRow(idle.cookie))[0].id],
      );
      await t.dataSource.query(
        "UPDATE session SET created_at = '2000-01-01 00:00:00' WHERE id = ?",
        [(await sessionRow(old.cookie))[0].id],
      );
      for (const { cookie } of [idle, old]) {
        expect((await request(t.url).get('/api/session/').set('Cookie', cookie)).status).toBe(401);
      }
    });

    it('writes the last use at most once a minute', async () => {
      const user = await aUser();
      const { cookie } = await signIn(user.email);
      const [{ id }] = await sessionRow(cookie);
      const recent = new Date(Date.now() - 30_000).toISOString().slice(0, 19).replace('T', ' ');
      await t.dataSource.query('UPDATE session SET last_used_at = ? WHERE id = ?', [recent, id]);
      await request(t.url).get('/api/session/').set('Cookie', cookie);
      const lastUse = () =>
        t.dataSource.query<Array<{ last_used_at: string }>>(
          'SELECT last_used_at FROM session WHERE id = ?',
          [id],
        );
      expect(String((await lastUse())[0].last_used_at)).toContain(recent);
      await t.dataSource.query(
        "UPDATE session SET last_used_at = '2026-01-01 00:00:00' WHERE id = ?",
        [id],
      );
      await t.dataSource.query('UPDATE session SET last_used_at = ? WHERE id = ?', [
        new Date(Date.now() - 120_000).toISOString().slice(0, 19).replace('T', ' '),
        id,
      ]);
      await request(t.url).get('/api/session/').set('Cookie', cookie);
      expect(String((await lastUse())[0].last_used_at)).not.toContain(recent);
    });
  });

  describe('logout, password and key', () => {
    it('ends the session and clears the cookie at logout', async () => {
      const user = await aUser();
      const { cookie, csrf } = await signIn(user.email);
      const response = await request(t.url)
        .post('/api/logout/')
        .set('Cookie', cookie)
        .set('X-CSRF-Token', csrf);
      expect(response.body).toMatchObject({ error: 0, response: true });
      expect((response.headers['set-cookie'] as unknown as string[])[0]).toMatch(
        /^smsgw_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/,
      );
      expect((await request(t.url).get('/api/session/').set('Cookie', cookie)).status).toBe(401);
    });

    it('changes the password, ending every other session; a wrong current_password is 400', async () => {
      const user = await aUser();
      const current = await signIn(user.email);
      const other = await signIn(user.email);
      const post = (fields: Record<string, string>) =>
        request(t.url)
          .post('/api/me/password/')
          .set('Cookie', current.cookie)
          .set('X-CSRF-Token', current.csrf)
          .send(fields);
      const wrong = await post({
        current_password: 'not it at all',
        new_password: 'another long one',
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe(2);
      expect(wrong.body.message).toMatch(/current_password/);
      const short = await post({ current_password: PASSWORD, new_password: 'short' });
      expect(short.status).toBe(400);
      expect(short.body.message).toMatch(/new_password must have 10 to 1024 characters/);

      expect(
        (await post({ current_password: PASSWORD, new_password: 'another long one' })).body
          .response,
      ).toBe(true);
      expect((await request(t.url).get('/api/session/').set('Cookie', other.cookie)).status).toBe(
        401,
      );
      expect((await request(t.url).get('/api/session/').set('Cookie', current.cookie)).status).toBe(
        200,
      );
      expect((await login(user.email, 'another long one')).status).toBe(200);
    });

    it('gives a new API key for the password, and the old key stops working at once', async () => {
      const user = await aUser();
      const { cookie, csrf } = await signIn(user.email);
      const post = (password: string) =>
        request(t.url)
          .post('/api/me/api-key/')
          .set('Cookie', cookie)
          .set('X-CSRF-Token', csrf)
          .send({ password });
      const wrong = await post('not the password');
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toMatch(/password is not the user's password/);
      const response = await post(PASSWORD);
      expect(response.body.response.api_key).toMatch(/^[0-9a-f]{32}$/);
      expect((await request(t.url).get('/api/me/').query({ api_key: user.apiKey })).status).toBe(
        401,
      );
      expect(
        (await request(t.url).get('/api/me/').query({ api_key: response.body.response.api_key }))
          .status,
      ).toBe(200);
    });
  });

  describe('brute force', () => {
    it('answers 429 with Retry-After after 5 failures for an e-mail, whatever the password; a success clears the count', async () => {
      const user = await aUser();
      for (let i = 0; i < 4; i++) {
        expect((await login(user.email.toUpperCase(), 'wrong password!')).status).toBe(401);
      }
      expect((await login(user.email, PASSWORD)).status).toBe(200);
      for (let i = 0; i < 5; i++) {
        expect((await login(user.email, 'wrong password!')).status).toBe(401);
      }
      const refused = await login(user.email, PASSWORD);
      expectCredentialsError(refused, 429, /^Too many failed sign-ins/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(900);
      // The window passes.
      await t.dataSource.query("UPDATE login_attempt SET created_at = '2000-01-01 00:00:00'");
      expect((await login(user.email, PASSWORD)).status).toBe(200);
    });

    it('counts unknown e-mails alike', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await login('ghost@example.test', 'wrong password!')).status).toBe(401);
      }
      expect((await login('ghost@example.test', 'wrong password!')).status).toBe(429);
    });

    it('counts 20 failures from one client address, taken from X-Forwarded-For under TRUST_PROXY', async () => {
      const proxied = await startApp(database(), { TRUST_PROXY: 'loopback' });
      try {
        const user = await aUser();
        const from = (address: string, email: string, password: string) =>
          request(proxied.url)
            .post('/api/login/')
            .set('X-Forwarded-For', address)
            .send({ email, password });
        for (let i = 0; i < 20; i++) {
          const response = await from('203.0.113.7', `stranger${i}@example.test`, 'wrong!');
          expect(response.status).toBe(401);
        }
        const refused = await from('203.0.113.7', user.email, PASSWORD);
        expectCredentialsError(refused, 429, /^Too many failed sign-ins/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect((await from('203.0.113.8', user.email, PASSWORD)).status).toBe(200);
      } finally {
        await proxied.close();
      }
    });

    it('purges expired sessions when someone signs in', async () => {
      const user = await aUser();
      const { cookie } = await signIn(user.email);
      await t.dataSource.query(
        "UPDATE session SET last_used_at = '2000-01-01 00:00:00' WHERE id = ?",
        [(await sessionRow(cookie))[0].id],
      );
      await signIn(user.email);
      expect(await sessionRow(cookie)).toHaveLength(0);
    });
  });
});

const onMariaDb = DATABASE_KINDS.includes('mariadb');

(onMariaDb ? describe : describe.skip)(
  `the brute-force count shared by two API processes [mariadb]${
    onMariaDb ? '' : ' (skipped: TEST_MYSQL_URL is not set)'
  }`,
  () => {
    let database: TestDatabase;
    const apps: BuiltApp[] = [];
    const email = 'shared-count@example.test';

    beforeAll(async () => {
      requireBuild();
      database = await createTestDatabase('mariadb');
      const ds = await openTestDataSource(database);
      await migrate(ds);
      const { user } = await makeUser(ds, { email });
      await ds
        .getRepository(User)
        .update({ id: user.id }, { password_hash: await hashPassword(PASSWORD) });
      await ds.destroy();
      for (const worker of ['off', 'inline']) {
        apps.push(
          await startBuiltApp(
            {
              DATABASE_URL: database.url,
              DATA_DIR: database.dataDir,
              LOG_LEVEL: 'silent',
              WORKER: worker,
            },
            database.dataDir,
          ),
        );
      }
    }, 60_000);
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()));
      await database?.drop();
    });

    const login = (app: BuiltApp, password: string) =>
      request(app.url).post('/api/login/').send({ email, password });

    it('refuses the sixth attempt on either process after 3 failures on one and 2 on the other', async () => {
      const [first, second] = apps;
      for (const [app, failures] of [
        [first, 3],
        [second, 2],
      ] as const) {
        for (let i = 0; i < failures; i++) {
          expect((await login(app, 'wrong password!')).status).toBe(401);
        }
      }
      for (const app of [first, second]) {
        const refused = await login(app, PASSWORD);
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ error: 1, response: null });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
      }
    }, 60_000);
  },
);
