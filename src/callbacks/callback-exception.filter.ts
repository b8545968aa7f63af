import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError, ErrorCode, httpStatusOf } from '../common/errors/api-error';

/**
 * Failures of provider callbacks, which are not envelope API routes: an unknown key is 401 and
 * a suspended user 403, both with an empty body; anything unexpected is logged and answered 500,
 * empty too, so that providers that repeat a failed callback do so.
 */
@Catch()
export class CallbackExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(CallbackExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    let status = 500;
    if (
      exception instanceof ApiError &&
      [ErrorCode.INVALID_CREDENTIALS, ErrorCode.SUSPENDED_USER].includes(exception.code)
    ) {
      status = httpStatusOf(exception);
    } else {
      const request = http.getRequest<Request>();
      this.logger.error({ err: exception }, `Unexpected failure of callback ${request.path}`);
    }
    if (!response.headersSent) {
      response.status(status).end();
    }
  }
}
