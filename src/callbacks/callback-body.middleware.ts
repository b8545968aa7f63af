import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, RequestHandler, Response } from 'express';
import { AppConfig } from '../config/configuration';
import { CallbackHttpRequest, readCallbackBody, readCallbackQuery } from './callback-request';

/**
 * Reads a callback's body whatever its type, up to MAX_BODY_BYTES: adapters need its text
 * (Kannel posts the message as a text/plain body) as well as its fields, and the API key may
 * be one of them. The API's body parser does not run on these routes: its errors are envelopes,
 * and a provider gets none.
 */
@Injectable()
export class CallbackBodyMiddleware implements NestMiddleware {
  private readonly logger = new Logger(CallbackBodyMiddleware.name);
  private readonly raw: RequestHandler;

  constructor(config: AppConfig) {
    this.raw = express.raw({ type: () => true, limit: config.limits.bodyBytes });
  }

  use(request: CallbackHttpRequest, response: Response, next: NextFunction): void {
    // Express's query parser is off (the API's body parser reads queries with their budget);
    // the API-key guard reads `api_key` from here.
    Object.defineProperty(request, 'query', {
      value: readCallbackQuery(request.originalUrl),
      writable: true,
      enumerable: true,
      configurable: true,
    });
    this.raw(request, response, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') {
        response.status(413).end();
        return;
      }
      if (error) {
        // Nothing usable arrived: the callback goes on without a body and is ignored later.
        this.logger.debug(
          `The body of a callback could not be read: ${(error as Error).message ?? 'unknown'}.`,
        );
      }
      const body: unknown = request.body;
      const buffer = !error && Buffer.isBuffer(body) ? body : Buffer.alloc(0);
      readCallbackBody(buffer, request.headers['content-type']).then((read) => {
        request.callbackBody = read;
        // The API-key guard reads a form field `api_key` from here.
        request.body = read.form;
        next();
      }, next);
    });
  }
}
