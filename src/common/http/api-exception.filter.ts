import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../../config/configuration';
import { ApiError, ErrorCode, httpStatusOf } from '../errors/api-error';
import { displayName } from '../params/query-string';
import { errorEnvelope } from './envelope';
import { ApiRequest } from './request';
import { servedMethods } from './served-methods';

/** Driver error codes meaning the database cannot be reached, rather than a bug (HTTP 503). */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_ACCESS_DENIED_ERROR',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/**
 * The one place where failures become responses: an `ApiError` becomes its envelope and status;
 * a framework error (unknown route, bad method, a path that does not decode) its nearest API
 * error, in our words; anything else a 500 or 503 whose message carries the request id and
 * nothing internal, while the log keeps the whole error.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);
  private readonly apiRoot: string;

  constructor(config: AppConfig) {
    this.apiRoot = `${config.basePath}/api`.toLowerCase();
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<ApiRequest>();
    const response = http.getResponse<Response>();
    if (this.isUndecodableOutsideApi(exception, request)) {
      // Routes outside the API (provider callbacks, media files) answer without a body: a path
      // that does not decode names nothing they serve.
      if (!response.headersSent) {
        response.status(404).end();
      }
      return;
    }
    // A client that uses the wrong method at a known path is told the methods it serves.
    const served = isUnknownRoute(exception) ? servedMethods(request) : [];
    const error = this.toApiError(exception, request, served);
    if (response.headersSent) {
      return;
    }
    if (served.length > 0) {
      response.setHeader('Allow', served.join(', '));
    }
    for (const [name, value] of Object.entries(error.headers)) {
      response.setHeader(name, value);
    }
    response.status(httpStatusOf(error)).json(errorEnvelope(error.code, error.message));
  }

  private isUndecodableOutsideApi(exception: unknown, request: ApiRequest): boolean {
    // Routing ignores case: `/API/…` reaches the API too.
    const path = request.path.toLowerCase();
    const inApi = path === this.apiRoot || path.startsWith(`${this.apiRoot}/`);
    return (
      !inApi &&
      exception instanceof HttpException &&
      exception.getStatus() < 500 &&
      undecodableSegment(request.originalUrl) !== undefined
    );
  }

  private toApiError(exception: unknown, request: ApiRequest, served: string[]): ApiError {
    if (exception instanceof ApiError) {
      return exception;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (isUnknownRoute(exception)) {
        return new ApiError(
          ErrorCode.INVALID_PARAMETER,
          `no operation at ${request.method} ${request.path}` +
            (served.length > 0 ? `; this path serves ${served.join(', ')}` : ''),
          'unknown_route',
        );
      }
      if (status < 500) {
        // Express's text ("Failed to decode param …") is not ours to show: say what is wrong.
        const segment = undecodableSegment(request.originalUrl);
        return ApiError.invalid(
          segment === undefined
            ? `the request could not be read (HTTP ${status}).`
            : `the path segment "${displayName(segment)}" is not valid: each % must start an ` +
                'escape (two hex digits) of UTF-8 text.',
        );
      }
    }
    const requestId = String(request.id ?? 'none');
    const code = (exception as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) {
      this.logger.error({ err: exception }, `The database is unavailable (${code})`);
      return new ApiError(
        ErrorCode.INTERNAL_ERROR,
        `The database is unavailable; try again later. Request id: ${requestId}`,
        'unavailable',
      );
    }
    this.logger.error(
      { err: exception },
      `Unexpected failure of ${request.method} ${request.path}`,
    );
    return new ApiError(
      ErrorCode.INTERNAL_ERROR,
      `Request id: ${requestId}; the server log holds the details.`,
    );
  }
}

/** Nest's answer when no route serves the request's method and path. */
function isUnknownRoute(exception: unknown): boolean {
  return (
    exception instanceof HttpException && exception.getStatus() === Number(HttpStatus.NOT_FOUND)
  );
}

/** The first segment of the URL's path that does not decode, as the router decodes them. */
function undecodableSegment(url: string): string | undefined {
  const end = url.indexOf('?');
  return (end < 0 ? url : url.slice(0, end)).split('/').find((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
}
