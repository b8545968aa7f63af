import { Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, RequestHandler, Response } from 'express';
import { mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig } from '../../config/configuration';
import { ApiError, ErrorCode } from '../errors/api-error';
import { parseQueryString } from '../params/query-string';
import { MultipartLimits, parseMultipart } from './multipart';
import { ApiRequest } from './request';

/** Files per request: an MMS carries a handful of medias; one more for `numbers_csv`. */
const MAX_FILES = 11;

/**
 * Parses request bodies before authentication (the API key may be a form field, DECISIONS §3):
 * urlencoded and multipart with PHP bracket syntax, JSON, and uploads to a temporary folder
 * under DATA_DIR that is emptied when the response ends. Size overflows are HTTP 413.
 */
@Injectable()
export class BodyParserMiddleware implements NestMiddleware {
  private readonly json: RequestHandler;
  private readonly urlencoded: RequestHandler;
  private readonly uploadDir: string;
  private readonly multipartLimits: MultipartLimits;

  constructor(config: AppConfig) {
    const limits = config.limits;
    this.uploadDir = join(config.dataDir, 'tmp', 'uploads');
    mkdirSync(this.uploadDir, { recursive: true });
    this.json = express.json({ limit: limits.bodyBytes, strict: false });
    this.urlencoded = express.text({
      type: 'application/x-www-form-urlencoded',
      limit: limits.bodyBytes,
    });
    this.multipartLimits = {
      fieldBytes: limits.bodyBytes,
      fileBytes: limits.fileBytes,
      largeFileBytes: limits.csvBytes,
      largeFileFields: new Set(['numbers_csv']),
      files: MAX_FILES,
    };
  }

  use(request: ApiRequest, response: Response, next: NextFunction): void {
    // Express 5 parses the query string again at every read of `request.query`, and both the
    // guard and the parameters read it: it is parsed once here and kept on the request.
    Object.defineProperty(request, 'query', {
      value: request.query,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    const type = request.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      // Only multipart bodies bring files.
      response.on('close', () => void removeUploads(request));
      parseMultipart(request, this.uploadDir, this.multipartLimits).then((fields) => {
        request.body = parseQueryString(fields);
        next();
      }, next);
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      this.urlencoded(request, response, (error?: unknown) => {
        if (error) {
          next(bodyError(error));
          return;
        }
        request.body = parseQueryString(typeof request.body === 'string' ? request.body : '');
        next();
      });
    } else if (/^application\/([\w.+-]+\+)?json/.test(type)) {
      this.json(request, response, (error?: unknown) => {
        if (error) {
          next(bodyError(error));
          return;
        }
        const body: unknown = request.body;
        if (
          body !== undefined &&
          (typeof body !== 'object' || body === null || Array.isArray(body))
        ) {
          next(ApiError.invalid('the JSON body must be an object of parameters.'));
          return;
        }
        next();
      });
    } else {
      next();
    }
  }
}

async function removeUploads(request: ApiRequest): Promise<void> {
  // Services that keep a file move it away first; whatever is left here is temporary.
  await Promise.all((request.files ?? []).map((file) => unlink(file.path).catch(() => undefined)));
}

function bodyError(error: unknown): ApiError {
  const type = (error as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return ApiError.tooLarge(ErrorCode.INVALID_PARAMETER, 'the request body is too large.');
    case 'entity.parse.failed':
      return ApiError.invalid('the JSON body is not valid JSON.');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return ApiError.invalid('the body encoding or charset is not supported; send UTF-8.');
    default:
      return ApiError.invalid('the request body could not be read.');
  }
}
