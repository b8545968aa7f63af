import { isIP } from 'node:net';
import { plainToInstance } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { parseOutboundAllow } from '../common/net/outbound-allow';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const WORKER_MODES = ['inline', 'off'] as const;
const METRICS_MODES = ['on', 'off'] as const;
/** What `Authorization: Bearer` may carry (RFC 6750's token68). */
const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** The environment as the README's configuration table names it; every variable has a default. */
export class EnvironmentVariables {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @Matches(/^(sqlite:.+|(mysql|mariadb):\/\/.+)$/, {
    message: 'DATABASE_URL must be sqlite:<path> or mysql://user:pass@host:port/db',
  })
  DATABASE_URL = 'sqlite:data/smsgw.sqlite';

  @IsOptional()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'PUBLIC_URL must be an absolute http(s) URL' })
  PUBLIC_URL?: string;

  @Matches(/^(\/[A-Za-z0-9._~-]+)*$/, {
    message: 'BASE_PATH must be empty or a path such as /raspisms',
  })
  BASE_PATH = '';

  @IsIn(WORKER_MODES)
  WORKER: (typeof WORKER_MODES)[number] = 'inline';

  @IsString()
  TZ = 'UTC';

  @IsString()
  DATA_DIR = 'data';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @IsInt()
  @Min(1024)
  MAX_BODY_BYTES = 1024 * 1024;

  @IsInt()
  @Min(1024)
  MAX_FILE_BYTES = 10 * 1024 * 1024;

  @IsInt()
  @Min(1024)
  MAX_CSV_BYTES = 20 * 1024 * 1024;

  @IsInt()
  @Min(1)
  MAX_CSV_ROWS = 200_000;

  @IsInt()
  @Min(10)
  @Max(1_000_000)
  MAX_PARAMS = 20_000;

  @IsInt()
  @Min(1)
  @Max(600_000)
  PROVIDER_TIMEOUT_MS = 10_000;

  @IsInt()
  @Min(10)
  @Max(3_600_000)
  PROVIDER_POLL_INTERVAL_MS = 20_000;

  @IsInt()
  @Min(10)
  @Max(60_000)
  DISPATCH_POLL_MS = 500;

  @IsInt()
  @Min(1)
  @Max(5000)
  DISPATCH_BATCH_SIZE = 500;

  @IsInt()
  @Min(1)
  @Max(100)
  DISPATCH_MAX_ATTEMPTS = 5;

  @IsInt()
  @Min(1)
  @Max(20)
  FAILOVER_PHONES = 3;

  @IsInt()
  @Min(1)
  @Max(86_400_000)
  DISPATCH_RETRY_BASE_MS = 30_000;

  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  WORKER_TIMEOUT_MS = 30_000;

  @IsInt()
  @Min(1)
  @Max(8760)
  MEDIA_GRACE_HOURS = 24;

  /** At most 30 days: a key row is kept that long whether or not it is used again. */
  @IsInt()
  @Min(1)
  @Max(720)
  IDEMPOTENCY_HOURS = 24;

  /** At most a day: the users' reliability periods are minutes to hours long. */
  @IsInt()
  @Min(1)
  @Max(1440)
  RELIABILITY_CHECK_MINUTES = 15;

  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = 5_000;

  @IsInt()
  @Min(1)
  @Max(720)
  WEBHOOK_MAX_AGE_HOURS = 24;

  @IsInt()
  @Min(1)
  @Max(365)
  WEBHOOK_LOG_DAYS = 7;

  @IsInt()
  @Min(1)
  @Max(8)
  TEXT_THREADS = 1;

  @IsInt()
  @Min(0)
  @Max(300)
  HEAP_GROWING_PERCENT = 20;

  @IsInt()
  @Min(1)
  @Max(10_000)
  TEMPLATE_TIMEOUT_MS = 100;

  @IsInt()
  @Min(1)
  @Max(10_000)
  CONDITION_TIMEOUT_MS = 50;

  @IsBoolean({ message: 'OUTBOUND_BLOCK_PRIVATE must be true or false' })
  OUTBOUND_BLOCK_PRIVATE = false;

  @IsString()
  OUTBOUND_ALLOW = '';

  /** `off` serves no `/metrics` and measures nothing per request: for comparing with and without. */
  @IsIn(METRICS_MODES)
  METRICS: (typeof METRICS_MODES)[number] = 'on';

  /**
   * Unset: `/metrics` is open to whoever reaches the port. Checked against BEARER_TOKEN below,
   * by a refusal that must not quote it.
   */
  @IsOptional()
  @IsString()
  METRICS_TOKEN?: string;

  @IsInt()
  @Min(1)
  @Max(525_600)
  SESSION_IDLE_MINUTES = 720;

  @IsInt()
  @Min(1)
  @Max(3650)
  SESSION_MAX_DAYS = 14;

  @IsBoolean({ message: 'SESSION_COOKIE_SECURE must be true or false' })
  SESSION_COOKIE_SECURE = false;

  /** Checked by `parseTrustProxy` below. */
  @IsString()
  TRUST_PROXY = 'false';

  /** Checked by `parseSecretsKey`, whose refusal must not quote the key. */
  @IsOptional()
  @IsString()
  SECRETS_KEY?: string;

  /**
   * Every variable as given, for the settings providers declare in their adapter descriptors
   * (`ProviderSettings`): no list here names a provider.
   */
  given: Readonly<Record<string, string | undefined>> = {};
}

/** Express's own names for address ranges, which `trust proxy` accepts beside addresses. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Express's `trust proxy` takes it: `true`, `false`, a number of hops, or a
 * comma-separated list of addresses, CIDR ranges and Express's range names; null when it is none
 * of these.
 */
export function parseTrustProxy(value: string): boolean | number | string[] | null {
  const text = value.trim().toLowerCase();
  // A number is hops, as Express reads it: `1` trusts the one proxy in front, not any client's
  // X-Forwarded-For, which would let a client choose the address its failed sign-ins count for.
  if (/^\d+$/.test(text)) {
    return Number(text);
  }
  if (text === 'true' || text === 'false') {
    return text === 'true';
  }
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (TRUST_PROXY_NAMES.has(entry)) {
      return true;
    }
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    return (
      family !== 0 &&
      extra === undefined &&
      (prefix === undefined ||
        (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)))
    );
  });
  return valid ? entries : null;
}

/** Bytes of the key that encrypts provider credentials (AES-256). */
export const SECRETS_KEY_BYTES = 32;

/**
 * The key `SECRETS_KEY` gives: 64 hexadecimal characters, or base64 (standard or URL-safe,
 * padded or not) of 32 bytes; null when it is neither.
 */
export function parseSecretsKey(value: string): Buffer | null {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    return Buffer.from(text, 'hex');
  }
  // Node's decoder skips what is not base64: the key must read back as it was written.
  const base64url = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const key = Buffer.from(base64url, 'base64url');
  return key.length === SECRETS_KEY_BYTES && key.toString('base64url') === base64url ? key : null;
}

const INTEGER_VARIABLES = new Set([
  'PORT',
  'MAX_BODY_BYTES',
  'MAX_FILE_BYTES',
  'MAX_CSV_BYTES',
  'MAX_CSV_ROWS',
  'MAX_PARAMS',
  'PROVIDER_TIMEOUT_MS',
  'PROVIDER_POLL_INTERVAL_MS',
  'DISPATCH_POLL_MS',
  'DISPATCH_BATCH_SIZE',
  'DISPATCH_MAX_ATTEMPTS',
  'FAILOVER_PHONES',
  'DISPATCH_RETRY_BASE_MS',
  'WORKER_TIMEOUT_MS',
  'MEDIA_GRACE_HOURS',
  'IDEMPOTENCY_HOURS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_MAX_AGE_HOURS',
  'WEBHOOK_LOG_DAYS',
  'RELIABILITY_CHECK_MINUTES',
  'TEXT_THREADS',
  'HEAP_GROWING_PERCENT',
  'TEMPLATE_TIMEOUT_MS',
  'CONDITION_TIMEOUT_MS',
  'SESSION_IDLE_MINUTES',
  'SESSION_MAX_DAYS',
]);

const BOOLEAN_VALUES: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
]);

function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A value as boot errors quote it: a URL's password is not theirs to print (DATABASE_URL). */
function withoutPassword(value: string | undefined): string | undefined {
  return value?.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#@]*@/i, '$1***@');
}

/**
 * Reads the known variables out of `raw`, applies defaults and validates them.
 * Throws one Error whose message names every invalid variable.
 */
export function validateEnvironment(raw: Record<string, string | undefined>): EnvironmentVariables {
  const { given: _given, ...defaults }: Record<string, unknown> = { ...new EnvironmentVariables() };
  const known = Object.keys(defaults).concat('PUBLIC_URL', 'SECRETS_KEY', 'METRICS_TOKEN');
  const input: Record<string, unknown> = {};
  for (const name of known) {
    const value = raw[name];
    if (value === undefined || value === '') {
      continue;
    }
    if (INTEGER_VARIABLES.has(name) && /^\d+$/.test(value)) {
      input[name] = Number(value);
    } else {
      input[name] =
        typeof defaults[name] === 'boolean'
          ? (BOOLEAN_VALUES.get(value.toLowerCase()) ?? value)
          : value;
    }
  }
  const env = plainToInstance(EnvironmentVariables, input);
  const problems = validateSync(env, { skipMissingProperties: false }).map((error) => {
    const reason = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
    return `${error.property}=${JSON.stringify(withoutPassword(raw[error.property]))}: ${reason}`;
  });
  if (env.SECRETS_KEY !== undefined && parseSecretsKey(env.SECRETS_KEY) === null) {
    problems.push(
      'SECRETS_KEY: must be 32 bytes, as 64 hexadecimal characters or in base64 ' +
        '(make one with `openssl rand -hex 32`)',
    );
  }
  if (env.METRICS_TOKEN !== undefined && !BEARER_TOKEN.test(env.METRICS_TOKEN)) {
    problems.push(
      'METRICS_TOKEN: must be a bearer token: letters, digits and - . _ ~ + /, then = padding ' +
        '(make one with `openssl rand -hex 32`)',
    );
  }
  if (parseTrustProxy(env.TRUST_PROXY) === null) {
    problems.push(
      `TRUST_PROXY=${JSON.stringify(env.TRUST_PROXY)}: TRUST_PROXY must be true, false, a number ` +
        'of proxies, or a comma-separated list of addresses and CIDR ranges',
    );
  }
  if (!isValidTimeZone(env.TZ)) {
    problems.push(
      `TZ=${JSON.stringify(env.TZ)}: TZ must be an IANA time zone such as Europe/Paris`,
    );
  }
  const { invalid } = parseOutboundAllow(env.OUTBOUND_ALLOW);
  if (invalid.length > 0) {
    problems.push(
      `OUTBOUND_ALLOW=${JSON.stringify(env.OUTBOUND_ALLOW)}: ${invalid.map((entry) => JSON.stringify(entry)).join(', ')} ${invalid.length === 1 ? 'is' : 'are'} not a host name, an IP address or a CIDR range`,
    );
  }
  if (problems.length > 0) {
    throw new Error(`Invalid environment variables: ${problems.join('; ')}`);
  }
  env.given = { ...raw };
  return env;
}
