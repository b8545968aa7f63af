import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { destination, stdSerializers } from 'pino';
import type { Options } from 'pino-http';
import { AppConfig } from '../../config/configuration';
import { Redactor } from './redaction';
import { isOperatorPath } from '../http/operator-paths';

/**
 * Parameter names whose values are secrets wherever they appear, beside the adapters'
 * credentials: API keys, webhook signing secrets, phones' callback tokens, console passwords and
 * CSRF tokens (the session cookie is a credential header).
 */
export const SECRET_NAMES = [
  'api_key',
  'secret',
  'callback_token',
  'password',
  'current_password',
  'new_password',
  'csrf_token',
  'x-csrf-token',
];

/**
 * The names of the adapters' secret fields, which the adapters module provides: the logs learn
 * them from the adapters' descriptors rather than from a list of their own.
 */
export const ADAPTER_SECRET_NAMES = Symbol('ADAPTER_SECRET_NAMES');

/** The request id: the caller's `X-Request-Id` when it is a sane one, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
}

/**
 * Errors as pino writes them, less what a failed query carries: its SQL and bound parameters
 * (mysql2 also gives the SQL with the values inlined, as `sql`) may hold message texts.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  const serialized = stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  const {
    parameters: _parameters,
    query: _query,
    sql: _sql,
    driverError: _driverError,
    ...kept
  } = serialized;
  return kept;
}

/**
 * The pino-http options of the API: level, request id, a request line without headers, and no
 * secret in any line. The request line masks its URL as it is made; every line, whatever wrote
 * it (a message, an error and its stack, an object at any depth), is checked once more as it is
 * written.
 */
export function pinoHttpOptions(logLevel: AppConfig['logLevel'], redactor: Redactor): Options {
  return {
    level: logLevel,
    // Every request gets a child logger bound to its `req`, serialised there and then, whatever
    // the level: the serialisers take the raw objects, rather than the copies pino-http would
    // first make of them (all headers, the query parsed once more), which doubled that cost.
    wrapSerializers: false,
    autoLogging: { ignore: (request) => isOperatorPath(request.url ?? '') },
    genReqId: (request: IncomingMessage, response: ServerResponse) => {
      const id = requestIdOf(request);
      // Given back so that a caller can quote it, as the 500 envelope does.
      response.setHeader('X-Request-Id', id);
      return id;
    },
    hooks: { streamWrite: (line) => redactor.line(line) },
    serializers: {
      err: serializeError,
      req: (request: { id: unknown; method: string; url: string; originalUrl?: string }) => ({
        id: request.id,
        method: request.method,
        // Express strips the mount path of a middleware from `url`; `originalUrl` keeps it all.
        url: redactor.text(request.originalUrl ?? request.url),
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
    inject: [AppConfig, ADAPTER_SECRET_NAMES],
    useFactory: (config: AppConfig, adapterSecrets: Iterable<string>) => ({
      pinoHttp: [
        pinoHttpOptions(config.logLevel, new Redactor([...SECRET_NAMES, ...adapterSecrets])),
        // Written by libuv's threads, the lines of a busy moment in one write, rather than one
        // blocking write per line on the event loop. pino writes what is pending when the
        // process exits, even on a fatal error; only a SIGKILL can lose the last lines.
        destination({ dest: 1, sync: false }),
      ],
    }),
  });
}
