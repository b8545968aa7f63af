import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { AppConfig } from '../../config/configuration';

/** Secrets never logged: API keys wherever they travel, and provider credentials. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.api_key',
  '*.adapter_data',
  '*.auth_token',
  '*.password',
  '*.app_secret',
  '*.consumer_key',
];

/** A URL with any `api_key` query parameter masked. */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&]api_key=)[^&#]*/gi, '$1[Redacted]');
}

/**
 * Structured logs through pino: one line per request and per event, each with the request id
 * (taken from `X-Request-Id` when the caller sends a sane one, so traces can be followed).
 */
export function loggingModule() {
  return LoggerModule.forRootAsync({
    inject: [AppConfig],
    useFactory: (config: AppConfig) => ({
      pinoHttp: {
        level: config.logLevel,
        genReqId: (request: IncomingMessage) => {
          const given = request.headers['x-request-id'];
          return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
        },
        redact: { paths: REDACTED_PATHS, censor: '[Redacted]' },
        serializers: {
          req: (request: { id: unknown; method: string; url: string }) => ({
            id: request.id,
            method: request.method,
            url: redactUrl(request.url),
          }),
        },
      },
    }),
  });
}
