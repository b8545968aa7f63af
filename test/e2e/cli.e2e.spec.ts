import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { hashApiKey } from '../../src/common/auth/api-key';
import { User } from '../../src/users/entities/user.entity';
import { startApp, TestApp } from '../support/app';
import { createTestDatabase, describeEachDatabase, TestDatabase } from '../support/databases';
import { makeUser } from '../support/factories';

const ROOT = join(__dirname, '..', '..');
const HEX_KEY = /^[0-9a-f]{32}$/;

interface PrintedUser {
  id: number;
  email: string;
  admin: boolean;
  status: string;
  created_at: string;
  api_key: string;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `smsgw` bin, as an operator would, against the given environment, with `input`
 * piped to its standard input (closed at once without it).
 */
function smsgw(args: string[], env: Record<string, string>, input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, 'bin', 'smsgw.js'), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

/** A failed command: a non-zero exit, exactly one line on stderr, nothing on stdout. */
function expectOneLineFailure(run: Run, message: string | RegExp): void {
  expect(run.code).not.toBe(0);
  expect(run.stdout).toBe('');
  expect(run.stderr.split('\n')).toEqual([expect.stringMatching(message), '']);
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) {
    throw new Error('dist/cli.js is missing: run `npm run build` (npm test does it) first.');
  }
});

describeEachDatabase('smsgw CLI', (database) => {
  let t: TestApp;
  let sequence = 0;
  const email = () => `cli${++sequence}@example.test`;
  const envOf = (db: TestDatabase) => ({
    DATABASE_URL: db.url,
    DATA_DIR: db.dataDir,
    LOG_LEVEL: 'silent',
  });
  const cli = (...args: string[]) => smsgw(args, envOf(database()));
  /** The CLI with `input` on its standard input, as `echo … | smsgw …` gives it. */
  const cliWithInput = (input: string, ...args: string[]) => smsgw(args, envOf(database()), input);
  /** Signs in over HTTP; the response. */
  const login = (address: string, password: string) =>
    request(t.url).post('/api/login/').send({ email: address, password });
  const storedHash = async (id: number) =>
    (
      await t.dataSource
        .getRepository(User)
        .findOne({ select: { id: true, password_hash: true }, where: { id } })
    )?.password_hash;
  /** The JSON a successful command printed. */
  const json = <T = PrintedUser>(run: Run): T => {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as T;
  };
  /** A user made directly in the database (spawning the CLI for each set-up would be slow). */
  const aUser = async (overrides: { email?: string; apiKey?: string } = {}) => {
    const { user, apiKey } = await makeUser(t.dataSource, { email: email(), ...overrides });
    return { id: user.id, email: user.email, created_at: user.created_at, api_key: apiKey };
  };
  const listPhones = (apiKey: string) =>
    request(t.url).get('/api/list/phone/').query({ api_key: apiKey });

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('user create', () => {
    it('prints the new user with a 32-hex key that authenticates against the API', async () => {
      const address = email();

      const user = json(await cli('user', 'create', '--email', address));

      expect(user).toEqual({
        id: expect.any(Number),
        email: address,
        admin: false,
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        api_key: expect.stringMatching(HEX_KEY),
      });
      const response = await listPhones(user.api_key);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ error: 0, response: [] });
      const byHeader = await request(t.url).get('/api/list/phone/').set('X-Api-Key', user.api_key);
      expect(byHeader.body.error).toBe(0);
    });

    it('sets the key given with --api-key, and --admin and --status', async () => {
      const apiKey = 'abcdef0123456789abcdef0123456789';

      const user = json(
        await cli(
          'user',
          'create',
          '--email',
          email(),
          '--api-key',
          apiKey,
          '--admin',
          '--status',
          'suspended',
        ),
      );

      expect(user).toMatchObject({ api_key: apiKey, admin: true, status: 'suspended' });
      const response = await listPhones(apiKey);
      expect(response.status).toBe(403);
      expect(response.body.error).toBe(16);
    });

    it('refuses a malformed --api-key with one line on stderr', async () => {
      const run = await cli('user', 'create', '--email', email(), '--api-key', 'NOT-A-KEY');

      expectOneLineFailure(run, /^--api-key must be 32 lowercase hexadecimal characters\.$/);
    });

    it('refuses an e-mail already used with one line on stderr', async () => {
      const address = email();
      await aUser({ email: address });

      const run = await cli('user', 'create', '--email', address);

      expectOneLineFailure(run, `A user with the e-mail ${address} already exists.`);
    });

    it('refuses an --api-key already used by another user with one line on stderr', async () => {
      const apiKey = '11111111111111111111111111111111';
      await aUser({ apiKey });

      const run = await cli('user', 'create', '--email', email(), '--api-key', apiKey);

      expectOneLineFailure(run, /^This API key is already used by another user\.$/);
    });

    it('refuses a bad --status with one line on stderr', async () => {
      const run = await cli('user', 'create', '--email', email(), '--status', 'deleted');

      expectOneLineFailure(run, /^Status must be one of active, suspended, not "deleted"\.$/);
    });

    it('refuses a missing --email with a message on stderr', async () => {
      const run = await cli('user', 'create');

      expectOneLineFailure(run, /required option '--email <email>' not specified/);
    });
  });

  describe('user list', () => {
    it('lists the users without their keys or key hashes', async () => {
      const created = await aUser();

      const listed = json<PrintedUser[]>(await cli('user', 'list'));

      expect(listed).toContainEqual({
        id: created.id,
        email: created.email,
        admin: false,
        status: 'active',
        created_at: created.created_at,
      });
      for (const user of listed) {
        expect(Object.keys(user).sort()).toEqual(['admin', 'created_at', 'email', 'id', 'status']);
      }
    });

    it('prints a list longer than a pipe holds in full', async () => {
      const rows = Array.from({ length: 800 }, (_, i) => ({
        email: `bulk-user-number-${i}@a-rather-long-domain.example.test`,
        api_key_hash: hashApiKey(`bulk${i}`),
        admin: 0,
        status: 'active' as const,
        created_at: '2024-01-02 03:04:05',
        updated_at: null,
      }));
      await t.dataSource.createQueryBuilder().insert().into(User).values(rows).execute();

      const run = await cli('user', 'list');

      expect(run.stdout.length).toBeGreaterThan(64 * 1024);
      expect(
        json<PrintedUser[]>(run).filter((user) => user.email.startsWith('bulk-')),
      ).toHaveLength(800);
    });
  });

  describe('user status', () => {
    it('suspends a user, whose key then gets 403, and makes them active again', async () => {
      const created = await aUser();

      const suspended = json(await cli('user', 'status', '--email', created.email, 'suspended'));
      expect(suspended).toMatchObject({ id: created.id, status: 'suspended' });
      const refused = await listPhones(created.api_key);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: 16, response: null });

      const active = json(await cli('user', 'status', '--email', created.email, 'active'));
      expect(active).toMatchObject({ id: created.id, status: 'active' });
      const accepted = await listPhones(created.api_key);
      expect(accepted.status).toBe(200);
      expect(accepted.body.error).toBe(0);
    });

    it('refuses an unknown status and an unknown e-mail with one line on stderr', async () => {
      const created = await aUser();

      expectOneLineFailure(
        await cli('user', 'status', '--email', created.email, 'banned'),
        /^Status must be one of active, suspended, not "banned"\.$/,
      );
      expectOneLineFailure(
        await cli('user', 'status', '--email', 'nobody@example.test', 'active'),
        /^No user has the e-mail nobody@example\.test\.$/,
      );
    });

    it('refuses a missing status argument with a message on stderr', async () => {
      expectOneLineFailure(
        await cli('user', 'status', '--email', 'nobody@example.test'),
        /missing required argument 'status'/,
      );
    });
  });

  describe('user password', () => {
    it('sets the password from the first line of standard input and prints the user without a key', async () => {
      const created = await aUser();

      const printed = json<Record<string, unknown>>(
        await cliWithInput(
          'first line password\nsecond line\n',
          'user',
          'password',
          '--email',
          created.email,
        ),
      );

      expect(printed).toEqual({
        id: created.id,
        email: created.email,
        admin: false,
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });
      expect(await storedHash(created.id)).toMatch(/^scrypt\$32768\$8\$1\$[\w+/]+=*\$[\w+/]+=*$/);
      expect((await login(created.email, 'first line password')).status).toBe(200);
      expect((await login(created.email, 'first line password\nsecond line')).status).toBe(401);
    });

    it('takes a line ended by CRLF, or by the end of the input, without its line end', async () => {
      const created = await aUser();

      json(
        await cliWithInput('windows password\r\n', 'user', 'password', '--email', created.email),
      );
      expect((await login(created.email, 'windows password')).status).toBe(200);
      json(await cliWithInput('no line end here', 'user', 'password', '--email', created.email));
      expect((await login(created.email, 'no line end here')).status).toBe(200);
      expect((await login(created.email, 'windows password')).status).toBe(401);
    });

    it("ends the user's sessions, and only theirs: whoever signed in with the old password is out", async () => {
      const created = await aUser();
      const other = await aUser();
      for (const address of [created.email, other.email]) {
        json(await cliWithInput('old password here\n', 'user', 'password', '--email', address));
      }
      const cookieOf = async (address: string) => {
        const response = await login(address, 'old password here');
        expect(response.status).toBe(200);
        return (response.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      };
      const ended = await cookieOf(created.email);
      const kept = await cookieOf(other.email);
      const session = (cookie: string) => request(t.url).get('/api/session/').set('Cookie', cookie);

      json(await cliWithInput('new password here\n', 'user', 'password', '--email', created.email));

      expect((await session(ended)).status).toBe(401);
      expect((await session(kept)).status).toBe(200);
    });

    it('refuses an unknown e-mail with one line on stderr', async () => {
      expectOneLineFailure(
        await cliWithInput(
          'a long enough password\n',
          'user',
          'password',
          '--email',
          'nobody@example.test',
        ),
        /^No user has the e-mail nobody@example\.test\.$/,
      );
    });

    it('refuses a password shorter than 10 or longer than 1024 characters with one line, storing nothing', async () => {
      const created = await aUser();

      expectOneLineFailure(
        await cliWithInput('too short\n', 'user', 'password', '--email', created.email),
        /^The password must have 10 to 1024 characters, not 9\.$/,
      );
      expectOneLineFailure(
        await cliWithInput(`${'é'.repeat(1025)}\n`, 'user', 'password', '--email', created.email),
        /^The password must have 10 to 1024 characters, not 1025\.$/,
      );
      expectOneLineFailure(
        await cliWithInput('', 'user', 'password', '--email', created.email),
        /^The password must have 10 to 1024 characters, not 0\.$/,
      );
      expect(await storedHash(created.id)).toBeNull();
      // Counted in code points: 10 emoji are 20 UTF-16 units but a valid password.
      json(
        await cliWithInput(`${'😀'.repeat(10)}\n`, 'user', 'password', '--email', created.email),
      );
      expect((await login(created.email, '😀'.repeat(10))).status).toBe(200);
    });
  });

  describe('user create --password-stdin', () => {
    it('creates the user with the password read from standard input; login then works', async () => {
      const address = email();

      const user = json(
        await cliWithInput(
          'created with one\n',
          'user',
          'create',
          '--email',
          address,
          '--password-stdin',
        ),
      );

      expect(user).toMatchObject({ email: address, api_key: expect.stringMatching(HEX_KEY) });
      expect(await storedHash(user.id)).toMatch(/^scrypt\$/);
      const response = await login(address, 'created with one');
      expect(response.status).toBe(200);
      expect(response.body.response.user).toMatchObject({ id: user.id, email: address });
    });

    it('creates no user when the password is refused', async () => {
      const address = email();

      expectOneLineFailure(
        await cliWithInput('short\n', 'user', 'create', '--email', address, '--password-stdin'),
        /^The password must have 10 to 1024 characters, not 5\.$/,
      );
      expect(await t.dataSource.getRepository(User).findOneBy({ email: address })).toBeNull();
    });

    it('leaves the user without a password when the option is absent', async () => {
      const user = json(
        await cliWithInput('ignored password\n', 'user', 'create', '--email', email()),
      );

      expect(await storedHash(user.id)).toBeNull();
      expect((await login(user.email, 'ignored password')).status).toBe(401);
    });
  });

  describe('user sessions end', () => {
    it("ends every session of the user: a session made by login stops working, others' go on", async () => {
      const created = await aUser();
      const other = await aUser();
      for (const address of [created.email, other.email]) {
        json(await cliWithInput('session password\n', 'user', 'password', '--email', address));
      }
      const cookieOf = async (address: string) => {
        const response = await login(address, 'session password');
        expect(response.status).toBe(200);
        return (response.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      };
      const first = await cookieOf(created.email);
      const second = await cookieOf(created.email);
      const kept = await cookieOf(other.email);
      const session = (cookie: string) => request(t.url).get('/api/session/').set('Cookie', cookie);
      expect((await session(first)).status).toBe(200);

      const printed = json<Record<string, unknown>>(
        await cli('user', 'sessions', 'end', '--email', created.email),
      );

      expect(printed).toMatchObject({ id: created.id, email: created.email, sessions_ended: 2 });
      expect(printed).not.toHaveProperty('api_key');
      expect((await session(first)).status).toBe(401);
      expect((await session(second)).status).toBe(401);
      expect((await session(kept)).status).toBe(200);
      // The key is not a session: it goes on working.
      expect((await listPhones(created.api_key)).status).toBe(200);
    });

    it('refuses an unknown e-mail with one line on stderr', async () => {
      expectOneLineFailure(
        await cli('user', 'sessions', 'end', '--email', 'nobody@example.test'),
        /^No user has the e-mail nobody@example\.test\.$/,
      );
    });
  });

  describe('user rotate-key', () => {
    it('prints a new key: the old key gets 401 and the new one 200', async () => {
      const created = await aUser();

      const rotated = json(await cli('user', 'rotate-key', '--email', created.email));

      expect(rotated).toMatchObject({ id: created.id, api_key: expect.stringMatching(HEX_KEY) });
      expect(rotated.api_key).not.toBe(created.api_key);
      const old = await listPhones(created.api_key);
      expect(old.status).toBe(401);
      expect(old.body).toMatchObject({ error: 1, response: null });
      const fresh = await listPhones(rotated.api_key);
      expect(fresh.status).toBe(200);
      expect(fresh.body.error).toBe(0);
    });
  });

  describe('setting', () => {
    it('sets a setting and lists it among the defaults', async () => {
      const created = await aUser();

      const afterSet = json<Record<string, string>>(
        await cli('setting', 'set', '--email', created.email, 'mms', '0'),
      );
      const listed = json<Record<string, string>>(
        await cli('setting', 'list', '--email', created.email),
      );

      const expected = {
        mms: '0',
        phone_limit: '0',
        phone_priority: '0',
        templating: '1',
        smsstop: '1',
        smsstop_respond: '1',
        smsstop_response: 'You will no longer receive messages from this number.',
        force_gsm_alphabet: '0',
        webhook: '1',
        send_window: '',
        timezone: '',
        default_phone_country: '',
        phone_reliability_failed: '1',
        phone_reliability_failed_rate_limit: '10',
        phone_reliability_failed_volume: '25',
        phone_reliability_failed_period: '120',
        phone_reliability_failed_grace_period: '1',
        phone_reliability_failed_webhook: '1',
        phone_reliability_failed_auto_disable: '0',
        phone_reliability_unknown: '0',
        phone_reliability_unknown_rate_limit: '25',
        phone_reliability_unknown_volume: '25',
        phone_reliability_unknown_period: '120',
        phone_reliability_unknown_grace_period: '1',
        phone_reliability_unknown_webhook: '1',
        phone_reliability_unknown_auto_disable: '0',
        alert_quota_limit_close: '0.9',
        alert_quota_limit_reached: '1',
      };
      expect(afterSet).toEqual(expected);
      expect(listed).toEqual(expected);
    });

    it('refuses a bad setting name with one line on stderr', async () => {
      const created = await aUser();

      expectOneLineFailure(
        await cli('setting', 'set', '--email', created.email, 'Bad-Name', '1'),
        /^"Bad-Name" is not a setting name/,
      );
    });

    it('refuses a value the API refuses too, with its reason on stderr', async () => {
      const created = await aUser();

      expectOneLineFailure(
        await cli('setting', 'set', '--email', created.email, 'default_phone_country', 'france'),
        /^default_phone_country must be an ISO 3166 alpha-2 country code/,
      );
    });

    it('refuses a reliability grace period as long as its period, as the API does', async () => {
      const created = await aUser();

      expectOneLineFailure(
        await cli(
          'setting',
          'set',
          '--email',
          created.email,
          'phone_reliability_failed_grace_period',
          '120',
        ),
        /^phone_reliability_failed_grace_period \(120\) must be less than phone_reliability_failed_period \(120\)/,
      );
    });

    it('refuses a missing value with a message on stderr', async () => {
      expectOneLineFailure(
        await cli('setting', 'set', '--email', 'nobody@example.test', 'mms'),
        /missing required argument 'value'/,
      );
    });
  });

  describe('quota', () => {
    const quotaOf = async (userId: number) =>
      (
        await t.dataSource.query<Array<Record<string, unknown>>>(
          'SELECT credit, consumed, start_date, expiration_date FROM quota WHERE id_user = ?',
          [userId],
        )
      ).map((row) => ({
        credit: Number(row.credit),
        consumed: Number(row.consumed),
        start_date: String(row.start_date).slice(0, 19),
        expiration_date: String(row.expiration_date).slice(0, 19),
      }));

    it('sets a quota and prints it as show does, then changes it, then removes it', async () => {
      const created = await aUser();

      const set = await cli(
        'quota',
        'set',
        '--email',
        created.email,
        '--credit',
        '1000',
        '--additional',
        '50',
        '--start',
        '2099-01-31 10:00:00',
        '--renew-interval',
        'P1M',
        '--auto-renew',
        '--report-unused',
      );
      const expected = {
        credit: 1000,
        additional: 50,
        consumed: 0,
        remaining: 1050,
        start_date: '2099-01-31 10:00:00',
        expiration_date: '2099-02-28 10:00:00',
        auto_renew: true,
        renew_interval: 'P1M',
        report_unused: true,
        report_unused_additional: false,
      };
      expect(json(set)).toEqual(expected);
      expect(json(await cli('quota', 'show', '--email', created.email))).toEqual(expected);
      await t.dataSource.query('UPDATE quota SET consumed = 7 WHERE id_user = ?', [created.id]);

      // The same start keeps the period and what it consumed; the defaults apply again.
      json(
        await cli(
          'quota',
          'set',
          '--email',
          created.email,
          '--credit',
          '20',
          '--start',
          '2099-01-31 10:00:00',
        ),
      );
      expect(await quotaOf(created.id)).toEqual([
        {
          credit: 20,
          consumed: 7,
          start_date: '2099-01-31 10:00:00',
          expiration_date: '2099-02-28 10:00:00',
        },
      ]);
      // A new start begins a new period.
      json(
        await cli(
          'quota',
          'set',
          '--email',
          created.email,
          '--credit',
          '20',
          '--start',
          '2099-01-01 00:00:00',
          '--renew-interval',
          'P1W',
        ),
      );
      expect(await quotaOf(created.id)).toEqual([
        {
          credit: 20,
          consumed: 0,
          start_date: '2099-01-01 00:00:00',
          expiration_date: '2099-01-08 00:00:00',
        },
      ]);
      const me = await request(t.url).get('/api/me/').query({ api_key: created.api_key });
      expect((me.body as { response: { quota: unknown } }).response.quota).toEqual({
        credit: 20,
        additional: 0,
        consumed: 0,
        remaining: 20,
        start_date: '2099-01-01 00:00:00',
        expiration_date: '2099-01-08 00:00:00',
        auto_renew: false,
      });

      expect(json(await cli('quota', 'remove', '--email', created.email))).toEqual({
        removed: true,
      });
      expect(await quotaOf(created.id)).toEqual([]);
      expect(json(await cli('quota', 'remove', '--email', created.email))).toEqual({
        removed: false,
      });
      expectOneLineFailure(
        await cli('quota', 'show', '--email', created.email),
        `The user ${created.email} has no quota.`,
      );
    });

    it('starts a quota now by default, for a month', async () => {
      const created = await aUser();

      const printed = json<{ start_date: string; expiration_date: string }>(
        await cli('quota', 'set', '--email', created.email, '--credit', '5'),
      );

      const start = new Date(`${printed.start_date.replace(' ', 'T')}Z`).getTime();
      expect(Math.abs(start - Date.now())).toBeLessThan(60_000);
      expect(printed.expiration_date.slice(5, 7)).not.toBe(printed.start_date.slice(5, 7));
    });

    it.each([
      [['--credit', '-1'], /^--credit must be a whole number from 0 to 2147483647, not "-1"\.$/],
      [['--credit', '1.5'], /^--credit must be a whole number/],
      [['--credit', '5', '--additional', 'x'], /^--additional must be a whole number/],
      [
        ['--credit', '5', '--start', '2026-02-30 00:00:00'],
        /^--start must be a date and time as YYYY-MM-DD HH:MM:SS/,
      ],
      [
        ['--credit', '5', '--renew-interval', 'monthly'],
        /^--renew-interval: "monthly" is not an ISO 8601 duration/,
      ],
      [
        ['--credit', '5', '--renew-interval', 'PT5M'],
        /^--renew-interval: the renew interval PT5M is shorter than one hour\.$/,
      ],
      [[], /required option '--credit <n>' not specified/],
    ])('refuses quota set %j with one line on stderr', async (args, message) => {
      const created = await aUser();

      expectOneLineFailure(await cli('quota', 'set', '--email', created.email, ...args), message);
      expect(await quotaOf(created.id)).toEqual([]);
    });

    it('refuses an unknown user', async () => {
      expectOneLineFailure(
        await cli('quota', 'set', '--email', 'nobody@example.test', '--credit', '5'),
        'No user has the e-mail nobody@example.test.',
      );
    });
  });

  describe('migrate', () => {
    let fresh: TestDatabase | undefined;
    afterAll(async () => {
      await fresh?.drop();
    });

    it('applies the migrations to a fresh database, then nothing on a second run', async () => {
      fresh = await createTestDatabase(database().kind);

      const first = await smsgw(['migrate'], envOf(fresh));
      const second = await smsgw(['migrate'], envOf(fresh));

      expect(json<{ applied: string[] }>(first)).toEqual({
        applied: [
          'InitialSchema1732230000000',
          'DispatchWorkers1763800000000',
          'EncryptAdapterSecrets1764000000000',
          'OutboxRenderInput1764100000000',
          'ScheduledExpansionCursor1764200000000',
          'ManagementApi1764300000000',
          'Webhooks1764400000000',
          'WebhookDeliveries1764500000000',
          'PhoneReliability1764600000000',
          'Quotas1764700000000',
          'PhoneCallbackTokens1764800000000',
          'PhonePacing1764900000000',
          'Sessions1765000000000',
          'Conversations1765100000000',
          'DashboardStatistics1765200000000',
          'WebhookDeliveryAnswer1765340000000',
          'WebhookAttempts1765360000000',
          'IdempotencyKeys1765400000000',
          'MessageValidity1765410000000',
          'MessagePriority1765440000000',
          'SendWindows1765450000000',
          'Failover1765460000000',
          'HiddenScheduled1765470000000',
        ],
      });
      expect(json<{ applied: string[] }>(second)).toEqual({ applied: [] });
    });
  });

  describe('errors', () => {
    it('refuses an unknown command with a message on stderr', async () => {
      expectOneLineFailure(await cli('frobnicate'), /unknown command 'frobnicate'/);
    });

    it('refuses an unknown option with a message on stderr', async () => {
      expectOneLineFailure(await cli('user', 'list', '--verbose'), /unknown option '--verbose'/);
    });

    it('names DATABASE_URL in one line when it is invalid', async () => {
      const run = await smsgw(['user', 'list'], {
        ...envOf(database()),
        DATABASE_URL: 'postgres://localhost/smsgw',
      });

      expectOneLineFailure(run, /^Invalid environment variables: DATABASE_URL=/);
    });

    it('says in one line that the database cannot be reached', async () => {
      const run = await smsgw(['user', 'list'], {
        ...envOf(database()),
        DATABASE_URL: 'mysql://root@127.0.0.1:1/smsgw',
      });

      expectOneLineFailure(run, /^smsgw: connect ECONNREFUSED 127\.0\.0\.1:1$/);
    });
  });
});
