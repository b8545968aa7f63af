import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Response } from 'express';
import { ApiError, ErrorCode, httpStatusOf } from '../errors/api-error';
import { errorEnvelope } from './envelope';
import { ApiRequest } from './request';

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
 * a framework error (unknown route, bad method) its nearest API error; anything else a 500 or 503
 * whose message carries the request id and nothing internal, while the log keeps the whole error.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<ApiRequest>();
    const response = http.getResponse<Response>();
    const error = this.toApiError(exception, request);
    if (response.headersSent) {
      return;
    }
    response.status(httpStatusOf(error)).json(errorEnvelope(error.code, error.message));
  }

  private toApiError(exception: unknown, request: ApiRequest): ApiError {
    if (exception instanceof ApiError) {
      return exception;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === Number(HttpStatus.NOT_FOUND)) {
        return new ApiError(
          ErrorCode.INVALID_PARAMETER,
          `no operation at ${request.method} ${request.path}`,
          'unknown_route',
        );
      }
      if (status < 500) {
        return new ApiError(ErrorCode.INVALID_PARAMETER, exception.message);
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
