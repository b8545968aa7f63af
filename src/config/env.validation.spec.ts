import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppConfig, loadConfig } from './configuration';
import { parseTrustProxy, validateEnvironment } from './env.validation';
import { ProviderSettings } from './provider-settings';

/** The message of the error `validateEnvironment` throws for `raw`. */
function rejection(raw: Record<string, string | undefined>): string {
  try {
    validateEnvironment(raw);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the environment to be refused');
}

describe('validateEnvironment (the README’s configuration table)', () => {
  it('gives every variable its default when none is set', () => {
    const env = validateEnvironment({});

    expect({ ...env }).toEqual({
      PORT: 3000,
      HOST: '0.0.0.0',
      DATABASE_URL: 'sqlite:data/smsgw.sqlite',
      BASE_PATH: '',
      WORKER: 'inline',
      TZ: 'UTC',
      DATA_DIR: 'data',
      LOG_LEVEL: 'info',
      MAX_BODY_BYTES: 1024 * 1024,
      MAX_FILE_BYTES: 10 * 1024 * 1024,
      MAX_CSV_BYTES: 20 * 1024 * 1024,
      MAX_CSV_ROWS: 200_000,
      MAX_PARAMS: 20_000,
      PROVIDER_TIMEOUT_MS: 10_000,
      PROVIDER_POLL_INTERVAL_MS: 20_000,
      DISPATCH_POLL_MS: 500,
      DISPATCH_BATCH_SIZE: 500,
      DISPATCH_MAX_ATTEMPTS: 5,
      FAILOVER_PHONES: 3,
      DISPATCH_RETRY_BASE_MS: 30_000,
      WORKER_TIMEOUT_MS: 30_000,
      MEDIA_GRACE_HOURS: 24,
      IDEMPOTENCY_HOURS: 24,
      WEBHOOK_TIMEOUT_MS: 5_000,
      WEBHOOK_MAX_AGE_HOURS: 24,
      WEBHOOK_LOG_DAYS: 7,
      RELIABILITY_CHECK_MINUTES: 15,
      OUTBOUND_BLOCK_PRIVATE: false,
      OUTBOUND_ALLOW: '',
      TEXT_THREADS: 1,
      TEMPLATE_TIMEOUT_MS: 100,
      CONDITION_TIMEOUT_MS: 50,
      HEAP_GROWING_PERCENT: 20,
      given: {},
      METRICS: 'on',
      SESSION_IDLE_MINUTES: 720,
      SESSION_MAX_DAYS: 14,
      SESSION_COOKIE_SECURE: false,
      TRUST_PROXY: 'false',
    });
    expect(env.PUBLIC_URL).toBeUndefined();
  });

  it('treats an empty variable as unset', () => {
    const env = validateEnvironment({ PORT: '', TZ: '', BASE_PATH: '', PUBLIC_URL: '' });

    expect([env.PORT, env.TZ, env.BASE_PATH, env.PUBLIC_URL]).toEqual([3000, 'UTC', '', undefined]);
  });

  it('reads valid values, integers as numbers, and keeps what it was given', () => {
    const given = {
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'mariadb://smsgw:secret@db:3306/smsgw',
      PUBLIC_URL: 'https://sms.example.org/',
      BASE_PATH: '/raspisms',
      WORKER: 'off',
      TZ: 'Europe/Paris',
      DATA_DIR: '/var/lib/smsgw',
      LOG_LEVEL: 'debug',
      MAX_BODY_BYTES: '2048',
      MAX_FILE_BYTES: '4096',
      MAX_CSV_BYTES: '8192',
      MAX_CSV_ROWS: '10',
      MAX_PARAMS: '500',
      PROVIDER_TIMEOUT_MS: '250',
      PROVIDER_POLL_INTERVAL_MS: '50',
      DISPATCH_POLL_MS: '100',
      DISPATCH_BATCH_SIZE: '50',
      DISPATCH_MAX_ATTEMPTS: '3',
      FAILOVER_PHONES: '5',
      DISPATCH_RETRY_BASE_MS: '1000',
      WORKER_TIMEOUT_MS: '5000',
      MEDIA_GRACE_HOURS: '2',
      IDEMPOTENCY_HOURS: '48',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_MAX_AGE_HOURS: '48',
      WEBHOOK_LOG_DAYS: '30',
      RELIABILITY_CHECK_MINUTES: '5',
      OUTBOUND_BLOCK_PRIVATE: 'true',
      OUTBOUND_ALLOW: 'smsc.internal,10.0.0.0/8',
      TEXT_THREADS: '2',
      TEMPLATE_TIMEOUT_MS: '20',
      CONDITION_TIMEOUT_MS: '10',
      HEAP_GROWING_PERCENT: '0',
      SOME_PROVIDER_API_URL: 'http://127.0.0.1:8081',
      METRICS: 'off',
      METRICS_TOKEN: 'scrape-token',
      SESSION_IDLE_MINUTES: '30',
      SESSION_MAX_DAYS: '2',
      SESSION_COOKIE_SECURE: 'true',
      TRUST_PROXY: '10.0.0.1, 192.168.0.0/16',
    };
    const env = validateEnvironment(given);

    // Strings come out as they were given; the provider URL only under `given`.
    const { SOME_PROVIDER_API_URL: _providerUrl, ...strings } = given;
    expect({ ...env }).toEqual({
      ...strings,
      PORT: 8080,
      MAX_BODY_BYTES: 2048,
      MAX_FILE_BYTES: 4096,
      MAX_CSV_BYTES: 8192,
      MAX_CSV_ROWS: 10,
      MAX_PARAMS: 500,
      PROVIDER_TIMEOUT_MS: 250,
      PROVIDER_POLL_INTERVAL_MS: 50,
      DISPATCH_POLL_MS: 100,
      DISPATCH_BATCH_SIZE: 50,
      DISPATCH_MAX_ATTEMPTS: 3,
      FAILOVER_PHONES: 5,
      DISPATCH_RETRY_BASE_MS: 1000,
      WORKER_TIMEOUT_MS: 5000,
      MEDIA_GRACE_HOURS: 2,
      IDEMPOTENCY_HOURS: 48,
      WEBHOOK_TIMEOUT_MS: 1500,
      WEBHOOK_MAX_AGE_HOURS: 48,
      WEBHOOK_LOG_DAYS: 30,
      RELIABILITY_CHECK_MINUTES: 5,
      OUTBOUND_BLOCK_PRIVATE: true,
      TEXT_THREADS: 2,
      TEMPLATE_TIMEOUT_MS: 20,
      CONDITION_TIMEOUT_MS: 10,
      HEAP_GROWING_PERCENT: 0,
      SESSION_IDLE_MINUTES: 30,
      SESSION_MAX_DAYS: 2,
      SESSION_COOKIE_SECURE: true,
      given,
    });
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('reads OUTBOUND_BLOCK_PRIVATE=%p as %p', (value, expected) => {
    expect(validateEnvironment({ OUTBOUND_BLOCK_PRIVATE: value }).OUTBOUND_BLOCK_PRIVATE).toBe(
      expected,
    );
  });

  it('fails naming every entry of OUTBOUND_ALLOW that is not a host, an address or a CIDR range', () => {
    expect(
      rejection({
        OUTBOUND_ALLOW: 'localhost, 10.0.0.0/33, smsc.internal,fd00::/129, *.example.org, 0x7f.1',
      }),
    ).toBe(
      'Invalid environment variables: OUTBOUND_ALLOW="localhost, 10.0.0.0/33, smsc.internal,fd00::/129, *.example.org, 0x7f.1": "10.0.0.0/33", "fd00::/129", "*.example.org", "0x7f.1" are not a host name, an IP address or a CIDR range',
    );
    expect(rejection({ OUTBOUND_ALLOW: '256.0.0.1' })).toBe(
      'Invalid environment variables: OUTBOUND_ALLOW="256.0.0.1": "256.0.0.1" is not a host name, an IP address or a CIDR range',
    );
  });

  it('accepts both MySQL spellings and SQLite paths', () => {
    for (const url of [
      'mysql://root@127.0.0.1:3306/test',
      'mariadb://u:p@h/db',
      'sqlite:/tmp/x.db',
    ]) {
      expect(validateEnvironment({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
  });

  it('ignores variables it does not know', () => {
    expect(() => validateEnvironment({ HOME: '/root', NODE_ENV: 'whatever' })).not.toThrow();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['WORKER', 'x'],
    ['LOG_LEVEL', 'x'],
    ['LOG_LEVEL', 'INFO'],
    ['TZ', 'Mars/Base'],
    ['DATABASE_URL', 'postgres://x'],
    ['DATABASE_URL', 'sqlite:'],
    ['PUBLIC_URL', 'notaurl'],
    ['PUBLIC_URL', 'ftp://example.org'],
    ['BASE_PATH', 'raspisms'],
    ['BASE_PATH', '/raspisms/'],
    ['BASE_PATH', '/a b'],
    ['MAX_BODY_BYTES', '100'],
    ['MAX_FILE_BYTES', 'ten'],
    ['MAX_CSV_BYTES', '0'],
    ['MAX_CSV_ROWS', '0'],
    ['MAX_PARAMS', '9'],
    ['MAX_PARAMS', '1000001'],
    ['PROVIDER_TIMEOUT_MS', '0'],
    ['PROVIDER_TIMEOUT_MS', '10s'],
    ['PROVIDER_TIMEOUT_MS', '600001'],
    ['PROVIDER_POLL_INTERVAL_MS', '9'],
    ['PROVIDER_POLL_INTERVAL_MS', '3600001'],
    ['MEDIA_GRACE_HOURS', '0'],
    ['MEDIA_GRACE_HOURS', '8761'],
    ['MEDIA_GRACE_HOURS', '1.5'],
    ['IDEMPOTENCY_HOURS', '0'],
    ['IDEMPOTENCY_HOURS', '721'],
    ['IDEMPOTENCY_HOURS', '2.5'],
    ['RELIABILITY_CHECK_MINUTES', '0'],
    ['RELIABILITY_CHECK_MINUTES', '1441'],
    ['RELIABILITY_CHECK_MINUTES', '2.5'],
    ['OUTBOUND_BLOCK_PRIVATE', 'yes please'],
    ['OUTBOUND_ALLOW', 'http://smsc.internal/'],
    ['OUTBOUND_ALLOW', '10.0.0.0/8/8'],
    ['OUTBOUND_ALLOW', '10.0.0.0/x'],
    ['SESSION_IDLE_MINUTES', '0'],
    ['SESSION_MAX_DAYS', '3651'],
    ['SESSION_COOKIE_SECURE', 'sometimes'],
    ['TRUST_PROXY', 'proxy.example.org'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TEXT_THREADS', '0'],
    ['TEXT_THREADS', '9'],
    ['TEMPLATE_TIMEOUT_MS', '0'],
    ['TEMPLATE_TIMEOUT_MS', '10001'],
    ['CONDITION_TIMEOUT_MS', '0'],
    ['CONDITION_TIMEOUT_MS', 'fast'],
    ['METRICS', 'x'],
    ['METRICS', 'true'],
  ])('refuses %s=%p with one message naming it and its value', (name, value) => {
    const message = rejection({ [name]: value });

    expect(message.startsWith('Invalid environment variables: ')).toBe(true);
    expect(message).toContain(`${name}=${JSON.stringify(value)}: `);
    // Exactly one problem is reported: the other variables take their valid defaults.
    expect(message.split('; ')).toHaveLength(1);
  });

  it('refuses a METRICS_TOKEN that cannot be a bearer token, without writing it in the message', () => {
    const message = rejection({ METRICS_TOKEN: 'two words' });

    expect(message).toMatch(
      /^Invalid environment variables: METRICS_TOKEN: must be a bearer token/,
    );
    expect(message).not.toContain('two words');
  });

  it('explains what a variable should be', () => {
    expect(rejection({ TZ: 'Mars/Base' })).toBe(
      'Invalid environment variables: TZ="Mars/Base": TZ must be an IANA time zone such as Europe/Paris',
    );
    expect(rejection({ BASE_PATH: 'raspisms' })).toContain(
      'BASE_PATH must be empty or a path such as /raspisms',
    );
    expect(rejection({ DATABASE_URL: 'postgres://x' })).toContain(
      'DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/db',
    );
    expect(rejection({ PUBLIC_URL: 'notaurl' })).toContain(
      'PUBLIC_URL must be an absolute http(s) URL',
    );
    expect(rejection({ OUTBOUND_BLOCK_PRIVATE: 'maybe' })).toContain(
      'OUTBOUND_BLOCK_PRIVATE must be true or false',
    );
  });

  it('quotes a refused URL without the password it holds', () => {
    const message = rejection({ DATABASE_URL: 'postgres://smsgw:hunter2@db:5432/smsgw' });

    expect(message).toContain('DATABASE_URL="postgres://smsgw:***@db:5432/smsgw"');
    expect(message).not.toContain('hunter2');
  });

  it('names every invalid variable together in one message', () => {
    const message = rejection({
      PORT: 'abc',
      WORKER: 'x',
      LOG_LEVEL: 'x',
      TZ: 'Mars/Base',
      DATABASE_URL: 'postgres://x',
      PUBLIC_URL: 'notaurl',
      BASE_PATH: 'raspisms',
      HOST: '0.0.0.0',
    });

    const named = message
      .replace('Invalid environment variables: ', '')
      .split('; ')
      .map((problem) => problem.slice(0, problem.indexOf('=')));
    expect(named.sort()).toEqual(
      ['BASE_PATH', 'DATABASE_URL', 'LOG_LEVEL', 'PORT', 'PUBLIC_URL', 'TZ', 'WORKER'].sort(),
    );
  });
});

describe('SECRETS_KEY', () => {
  const HEX = '00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF';
  const BYTES = Buffer.from(HEX, 'hex');

  it.each([
    ['64 hexadecimal characters', HEX],
    ['base64', BYTES.toString('base64')],
    ['base64 without padding', BYTES.toString('base64').replace(/=+$/, '')],
    ['base64url', BYTES.toString('base64url')],
    ['surrounding blanks', `  ${HEX}\n`],
  ])('reads a key of 32 bytes given as %s', (_, value) => {
    const config = new AppConfig(validateEnvironment({ SECRETS_KEY: value }));

    expect(config.secretsKey).toEqual(BYTES);
  });

  it('is unset by default: the key is then kept under DATA_DIR', () => {
    expect(new AppConfig(validateEnvironment({})).secretsKey).toBeNull();
  });

  it.each([
    ['too short', HEX.slice(2)],
    ['not hexadecimal nor base64', `${HEX.slice(1)}g`],
    ['base64 of 31 bytes', BYTES.subarray(1).toString('base64')],
    ['base64 of 33 bytes', Buffer.concat([BYTES, BYTES.subarray(0, 1)]).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
  ])('refuses a key that is %s, without writing it in the message', (_, value) => {
    const message = rejection({ SECRETS_KEY: value });

    expect(message).toBe(
      'Invalid environment variables: SECRETS_KEY: must be 32 bytes, as 64 hexadecimal ' +
        'characters or in base64 (make one with `openssl rand -hex 32`)',
    );
    expect(message).not.toContain(value.trim());
  });
});

describe('parseTrustProxy (TRUST_PROXY as Express’s trust proxy takes it)', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', 1],
    ['false', false],
    ['0', 0],
    [' true ', true],
    ['2', 2],
    ['10', 10],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.1, 192.168.0.0/16', ['10.0.0.1', '192.168.0.0/16']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
    ['LinkLocal', ['linklocal']],
    ['::1, fd00::/8', ['::1', 'fd00::/8']],
    ['10.0.0.0/32', ['10.0.0.0/32']],
    ['fe80::/128', ['fe80::/128']],
  ])('%j is %j', (value, parsed) => {
    expect(parseTrustProxy(value)).toEqual(parsed);
  });

  it.each([
    'yes',
    'proxy.example.org',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/8/8',
    '10.0.0.0/',
    '10.0.0.0/x',
    '10.0.0.1,',
    '10.0.0.1,,10.0.0.2',
    '-1',
    '1.5',
    '',
  ])('refuses %j', (value) => {
    expect(parseTrustProxy(value)).toBeNull();
  });

  it('gives AppConfig false when TRUST_PROXY is unset', () => {
    expect(new AppConfig(validateEnvironment({})).trustProxy).toBe(false);
    expect(new AppConfig(validateEnvironment({ TRUST_PROXY: '1' })).trustProxy).toBe(1);
    expect(new AppConfig(validateEnvironment({ TRUST_PROXY: 'loopback' })).trustProxy).toEqual([
      'loopback',
    ]);
  });
});

describe('AppConfig', () => {
  it('turns the validated environment into typed configuration', () => {
    const config = new AppConfig(
      validateEnvironment({
        DATABASE_URL: 'mariadb://u:p@db:3306/smsgw',
        PUBLIC_URL: 'https://sms.example.org//',
        DATA_DIR: 'some/dir',
        MAX_BODY_BYTES: '2048',
      }),
    );

    expect(config.database).toEqual({ type: 'mysql', url: 'mysql://u:p@db:3306/smsgw' });
    expect(config.publicUrl).toBe('https://sms.example.org');
    expect(config.dataDir).toBe(resolve('some/dir'));
    expect(config.limits.bodyBytes).toBe(2048);
    expect(config.timeZone).toBe('UTC');
  });

  it('resolves a SQLite path and leaves PUBLIC_URL unset by default', () => {
    const config = new AppConfig(validateEnvironment({ DATABASE_URL: 'sqlite:data/x.sqlite' }));

    expect(config.database).toEqual({ type: 'sqlite', path: resolve('data/x.sqlite') });
    expect(config.publicUrl).toBeNull();
  });

  it('gives the providers a 10 s timeout and a 20 s poll by default', () => {
    const config = new AppConfig(validateEnvironment({}));

    expect(config.providers).toEqual({
      settings: expect.any(ProviderSettings),
      timeoutMs: 10_000,
      pollIntervalMs: 20_000,
    });
  });

  it('keeps the answers of idempotency keys 24 hours by default, IDEMPOTENCY_HOURS otherwise', () => {
    expect(new AppConfig(validateEnvironment({})).idempotencyMs).toBe(24 * 3_600_000);
    expect(new AppConfig(validateEnvironment({ IDEMPOTENCY_HOURS: '720' })).idempotencyMs).toBe(
      720 * 3_600_000,
    );
  });

  it('keeps orphan medias 24 hours by default, MEDIA_GRACE_HOURS otherwise', () => {
    expect(new AppConfig(validateEnvironment({})).mediaGraceMs).toBe(24 * 3_600_000);
    expect(new AppConfig(validateEnvironment({ MEDIA_GRACE_HOURS: '2' })).mediaGraceMs).toBe(
      2 * 3_600_000,
    );
  });

  it('checks phone reliability every 15 minutes by default, RELIABILITY_CHECK_MINUTES otherwise', () => {
    expect(new AppConfig(validateEnvironment({})).reliabilityCheckMs).toBe(15 * 60_000);
    expect(
      new AppConfig(validateEnvironment({ RELIABILITY_CHECK_MINUTES: '1' })).reliabilityCheckMs,
    ).toBe(60_000);
  });

  it('reads the settings providers declare from the variables it was given', () => {
    const config = new AppConfig(
      validateEnvironment({
        SOME_PROVIDER_API_URL: 'http://127.0.0.1:8081/',
        PROVIDER_TIMEOUT_MS: '250',
        PROVIDER_POLL_INTERVAL_MS: '50',
      }),
    );
    const setting = {
      kind: 'url',
      variable: 'SOME_PROVIDER_API_URL',
      default: 'https://api.example.com',
    } as const;

    expect(config.providers.settings.url(setting)).toBe('http://127.0.0.1:8081');
    expect(config.providers.timeoutMs).toBe(250);
    expect(config.providers.pollIntervalMs).toBe(50);
  });
});

describe('AppConfig outbound', () => {
  it('refuses nothing but link-local and unspecified addresses, and allows nothing more, by default', () => {
    expect(new AppConfig(validateEnvironment({})).outbound).toEqual({
      blockPrivate: false,
      allow: { hosts: [], ranges: [] },
    });
  });

  it('reads OUTBOUND_ALLOW into host names and address ranges', () => {
    const config = new AppConfig(
      validateEnvironment({
        OUTBOUND_BLOCK_PRIVATE: 'true',
        OUTBOUND_ALLOW: ' Kannel.Internal. ,127.0.0.1,,10.0.0.0/8, [fd00::1] ,fe80::/64 ',
      }),
    );

    expect(config.outbound).toEqual({
      blockPrivate: true,
      allow: {
        hosts: ['kannel.internal'],
        ranges: [
          { network: '127.0.0.1', prefix: 32, family: 'ipv4' },
          { network: '10.0.0.0', prefix: 8, family: 'ipv4' },
          { network: 'fd00::1', prefix: 128, family: 'ipv6' },
          { network: 'fe80::', prefix: 64, family: 'ipv6' },
        ],
      },
    });
  });
});

describe('loadConfig', () => {
  const processZone = process.env.TZ;
  let folder: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-env-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
    if (processZone === undefined) {
      delete process.env.TZ;
    } else {
      process.env.TZ = processZone;
    }
  });

  it('reads a .env file under the real environment, which wins', () => {
    const dotEnv = join(folder, '.env');
    writeFileSync(
      dotEnv,
      [
        '# a comment',
        'PORT=4000',
        'LOG_LEVEL="warn"',
        "BASE_PATH='/raspisms'",
        'TZ=Europe/Paris # the office',
        'HOST="0.0.0.0 # not a comment when quoted"',
        '',
      ].join('\n'),
    );

    const config = loadConfig({ PORT: '5000' }, dotEnv);

    expect(config.host).toBe('0.0.0.0 # not a comment when quoted');
    expect(config.port).toBe(5000);
    expect(config.logLevel).toBe('warn');
    expect(config.basePath).toBe('/raspisms');
    expect(config.timeZone).toBe('Europe/Paris');
  });

  it('takes TZ from the .env file when the process environment has none', () => {
    const dotEnv = join(folder, '.env');
    writeFileSync(dotEnv, 'TZ=Europe/Paris\n');

    expect(process.env.TZ === undefined || process.env.TZ === 'UTC').toBe(true);
    expect(loadConfig(undefined, dotEnv).timeZone).toBe('Europe/Paris');
  });

  it('runs without a .env file', () => {
    expect(loadConfig({}, join(folder, 'missing.env')).port).toBe(3000);
  });

  it('keeps the service zone as configured and leaves process.env as it was', () => {
    const before = { ...process.env };
    const dotEnv = join(folder, '.env');
    writeFileSync(dotEnv, 'PORT=4000\nSMSGW_UNKNOWN=1\n');

    const config = loadConfig({ TZ: 'Asia/Tokyo' }, dotEnv);

    expect(config.timeZone).toBe('Asia/Tokyo');
    expect(config.port).toBe(4000);
    expect(process.env).toEqual(before);
  });

  it('refuses an invalid .env value, naming it', () => {
    const dotEnv = join(folder, '.env');
    writeFileSync(dotEnv, 'WORKER=sometimes\n');

    expect(() => loadConfig({}, dotEnv)).toThrow('WORKER="sometimes"');
  });
});
