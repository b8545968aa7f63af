import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';

/**
 * Failures of the operators' routes (health, metrics), which are not part of the API: the
 * HTTP status with its reason as plain text, never the envelope. Anything unexpected is logged
 * and answered 500.
 */
@Catch()
export class PlainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(PlainExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    let status = 500;
    if (exception instanceof HttpException) {
      status = exception.getStatus();
    } else {
      const request = http.getRequest<Request>();
      this.logger.error(
        { err: exception },
        `Unexpected failure of ${request.method} ${request.path}`,
      );
    }
    if (!response.headersSent) {
      response
        .status(status)
        .type('text/plain')
        .send(`${STATUS_CODES[status] ?? 'Error'}\n`);
    }
  }
}
