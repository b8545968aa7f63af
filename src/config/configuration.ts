import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'dotenv';
import { OutboundSettings, parseOutboundAllow } from '../common/net/outbound-allow';
import { ProviderSettings } from './provider-settings';
import {
  EnvironmentVariables,
  parseSecretsKey,
  parseTrustProxy,
  validateEnvironment,
} from './env.validation';
import { ConfigurationError } from './configuration-error';
import { processEnvironment } from './process-clock';

export type DatabaseConfig = { type: 'sqlite'; path: string } | { type: 'mysql'; url: string };

/** The typed configuration every module receives through `AppConfig`. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseConfig;
  readonly publicUrl: string | null;
  readonly basePath: string;
  readonly worker: 'inline' | 'off';
  readonly timeZone: string;
  readonly dataDir: string;
  /**
   * The key that encrypts provider credentials in the database, from SECRETS_KEY; null when
   * unset, for the key kept in DATA_DIR/secrets.key.
   */
  readonly secretsKey: Buffer | null;
  readonly logLevel: EnvironmentVariables['LOG_LEVEL'];
  readonly limits: {
    bodyBytes: number;
    fileBytes: number;
    csvBytes: number;
    csvRows: number;
    /** Parameters of one request: query string and form fields together. */
    params: number;
  };
  readonly providers: {
    /** What each provider declares for itself, such as where its API is (tests use fakes). */
    settings: ProviderSettings;
    /** How long one provider check (all its requests) may take. */
    timeoutMs: number;
    /** How often providers that cannot push received messages are asked for them. */
    pollIntervalMs: number;
  };
  readonly dispatch: {
    /** How often an idle worker looks for due messages. */
    pollMs: number;
    /** Recipients claimed, sent and recorded together. */
    batchSize: number;
    /** Sends of one recipient before a transient failure becomes final. */
    maxAttempts: number;
    /** Phones a recipient may go through when they refuse it for a reason of their own. */
    failoverPhones: number;
    /** Wait before the first retry; it doubles at each attempt. */
    retryBaseMs: number;
    /** A worker silent this long is dead: its sends in flight are recorded as unknown. */
    workerTimeoutMs: number;
  };
  /**
   * How long a media no entry links any more is kept before the dispatch worker removes it:
   * also how old a media must be before it can be collected at all, which keeps an upload's row
   * and file safe while its request is still writing them.
   */
  readonly mediaGraceMs: number;
  /** How long the answer of a request with an idempotency key is kept (docs/idempotency.md). */
  readonly idempotencyMs: number;
  /**
   * How much V8's old generation may grow past what its last full collection found alive, in
   * percent; 0: as V8 decides (src/common/runtime/v8-heap.ts).
   */
  readonly heapGrowingPercent: number;
  /** How events reach webhooks (docs/api.md#webhook-deliveries). */
  readonly webhooks: {
    /** How long one delivery attempt may take, connection included. */
    timeoutMs: number;
    /** How long after its event a delivery is still retried. */
    maxAgeMs: number;
    /** How long delivered and failed deliveries stay in the log. */
    logMs: number;
  };
  /** How often the dispatch worker checks the phones' reliability (docs/dispatch.md). */
  readonly reliabilityCheckMs: number;
  /** Which addresses the destinations users give (provider URLs, SMSC hosts) may reach. */
  readonly outbound: OutboundSettings;
  /** Template rendering and condition evaluation, which run in a pool of worker threads. */
  readonly text: {
    /** Most threads of the pool. */
    threads: number;
    /** How long one recipient's render may take. */
    templateTimeoutMs: number;
    /** How long a condition with `matches` may take for one contact. */
    conditionTimeoutMs: number;
  };

  /** The console's sessions (docs/api.md#sessions-the-console). */
  readonly sessions: { idleMs: number; maxMs: number; cookieSecure: boolean };
  /** Express's `trust proxy`: which proxies' X-Forwarded-For and X-Forwarded-Proto count. */
  readonly trustProxy: boolean | number | string[];

  /** The Prometheus endpoint: whether it is served, and the bearer token it requires if any. */
  readonly metrics: { enabled: boolean; token: string | null };

  constructor(env: EnvironmentVariables) {
    this.port = env.PORT;
    this.host = env.HOST;
    this.dataDir = resolve(env.DATA_DIR);
    this.secretsKey = env.SECRETS_KEY === undefined ? null : parseSecretsKey(env.SECRETS_KEY);
    this.database = parseDatabaseUrl(env.DATABASE_URL);
    this.publicUrl = env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : null;
    this.basePath = env.BASE_PATH;
    this.worker = env.WORKER;
    this.timeZone = env.TZ;
    this.logLevel = env.LOG_LEVEL;
    this.limits = {
      bodyBytes: env.MAX_BODY_BYTES,
      fileBytes: env.MAX_FILE_BYTES,
      csvBytes: env.MAX_CSV_BYTES,
      csvRows: env.MAX_CSV_ROWS,
      params: env.MAX_PARAMS,
    };
    this.providers = {
      settings: new ProviderSettings(env.given),
      timeoutMs: env.PROVIDER_TIMEOUT_MS,
      pollIntervalMs: env.PROVIDER_POLL_INTERVAL_MS,
    };
    this.dispatch = {
      pollMs: env.DISPATCH_POLL_MS,
      batchSize: env.DISPATCH_BATCH_SIZE,
      maxAttempts: env.DISPATCH_MAX_ATTEMPTS,
      failoverPhones: env.FAILOVER_PHONES,
      retryBaseMs: env.DISPATCH_RETRY_BASE_MS,
      workerTimeoutMs: env.WORKER_TIMEOUT_MS,
    };
    this.mediaGraceMs = env.MEDIA_GRACE_HOURS * 3_600_000;
    this.idempotencyMs = env.IDEMPOTENCY_HOURS * 3_600_000;
    this.heapGrowingPercent = env.HEAP_GROWING_PERCENT;
    this.webhooks = {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAgeMs: env.WEBHOOK_MAX_AGE_HOURS * 3_600_000,
      logMs: env.WEBHOOK_LOG_DAYS * 86_400_000,
    };
    this.reliabilityCheckMs = env.RELIABILITY_CHECK_MINUTES * 60_000;
    this.outbound = {
      blockPrivate: env.OUTBOUND_BLOCK_PRIVATE,
      allow: parseOutboundAllow(env.OUTBOUND_ALLOW).allow,
    };
    this.text = {
      threads: env.TEXT_THREADS,
      templateTimeoutMs: env.TEMPLATE_TIMEOUT_MS,
      conditionTimeoutMs: env.CONDITION_TIMEOUT_MS,
    };
    this.sessions = {
      idleMs: env.SESSION_IDLE_MINUTES * 60_000,
      maxMs: env.SESSION_MAX_DAYS * 86_400_000,
      cookieSecure: env.SESSION_COOKIE_SECURE,
    };
    this.trustProxy = parseTrustProxy(env.TRUST_PROXY) ?? false;
    this.metrics = { enabled: env.METRICS === 'on', token: env.METRICS_TOKEN ?? null };
  }
}

function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    return { type: 'sqlite', path: resolve(url.slice('sqlite:'.length)) };
  }
  return { type: 'mysql', url: url.replace(/^mariadb:/, 'mysql:') };
}

/** Validates `raw` (variables by name) into the typed configuration, or throws a ConfigurationError. */
export function configFromEnvironment(raw: Record<string, string | undefined>): AppConfig {
  try {
    return new AppConfig(validateEnvironment(raw));
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
}

/** The variables of a `.env` file, read as @nestjs/config reads it (dotenv); none without one. */
export function readDotEnv(path: string): Record<string, string> {
  return existsSync(path) ? parse(readFileSync(path)) : {};
}

/**
 * The configuration for what runs outside Nest's container (the CLI, the TypeORM CLI's data
 * source): `.env` (when present) under the real environment, validated as the server does it
 * (AppConfigModule).
 */
export function loadConfig(
  environment: Record<string, string | undefined> = processEnvironment(),
  dotEnvPath = resolve('.env'),
): AppConfig {
  return configFromEnvironment({ ...readDotEnv(dotEnvPath), ...environment });
}
