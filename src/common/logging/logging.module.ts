import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { stdSerializers } from 'pino';
import type { Options } from 'pino-http';
import { AppConfig } from '../../config/configuration';

/** Provider credentials of the adapters' data (DECISIONS §7). */
const SECRET_NAMES = [
  'api_key',
  'adapter_data',
  'auth_token',
  'password',
  'app_secret',
  'consumer_key',
];

/**
 * Secrets never logged: API keys wherever they travel, and provider credentials, whether they
 * are logged as top-level fields (`{ api_key }`) or inside one object (`{ phone: { ... } }`).
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  ...SECRET_NAMES,
  ...SECRET_NAMES.map((name) => `*.${name}`),
];

/**
 * A URL with the value of any `api_key` query parameter masked, however the name is spelled
 * for the query parser: `api_key`, `api%5Fkey`, `api_key[]`, `api_key%5B0%5D`.
 */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&])([^&=#]*)=([^&#]*)/g, (parameter, separator: string, name: string) =>
    isApiKeyName(name) ? `${separator}${name}=[Redacted]` : parameter,
  );
}

function isApiKeyName(name: string): boolean {
  let decoded = name.replace(/\+/g, ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // A malformed escape elsewhere in the name: compare what can be read.
  }
  return /^api_key(\[|$)/i.test(decoded);
}

/** The request id: the caller's `X-Request-Id` when it is a sane one, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * Errors as pino writes them, less what a failed query carries: its SQL and bound parameters
 * may hold provider credentials or message texts.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  const serialized = stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  const { parameters: _parameters, query: _query, driverError: _driverError, ...kept } = serialized;
  return kept;
}

/** The pino-http options of the API: level, request id, redaction, a request line without headers. */
export function pinoHttpOptions(logLevel: AppConfig['logLevel']): Options {
  return {
    level: logLevel,
    // Every request gets a child logger bound to its `req`, serialised there and then, whatever
    // the level: the serialisers take the raw objects, rather than the copies pino-http would
    // first make of them (all headers, the query parsed once more), which doubled that cost.
    wrapSerializers: false,
    genReqId: (request: IncomingMessage, response: ServerResponse) => {
      const id = requestIdOf(request);
      // Given back so that a caller can quote it, as the 500 envelope does.
      response.setHeader('X-Request-Id', id);
      return id;
    },
    redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
    serializers: {
      err: serializeError,
      req: (request: { id: unknown; method: string; url: string; originalUrl?: string }) => ({
        id: request.id,
        method: request.method,
        // Express strips the mount path of a middleware from `url`; `originalUrl` keeps it all.
        url: redactUrl(request.originalUrl ?? request.url),
      }),
      res: stdSerializers.res,
    },
  };
}

/**
 * Structured logs through pino: one line per request and per event, each with the request id
 * (taken from `X-Request-Id` when the caller sends a sane one, so traces can be followed).
 */
export function loggingModule() {
  return LoggerModule.forRootAsync({
    inject: [AppConfig],
    useFactory: (config: AppConfig) => ({ pinoHttp: pinoHttpOptions(config.logLevel) }),
  });
}
