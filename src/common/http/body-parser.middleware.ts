import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, RequestHandler, Response } from 'express';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AppConfig } from '../../config/configuration';
import { ApiError, ErrorCode } from '../errors/api-error';
import { checkParams } from '../params/check-params';
import { Params } from '../params/parse';
import {
  ParamBudget,
  paramsFromPairs,
  parseQueryString,
  queryStringOf,
} from '../params/query-string';
import { MultipartLimits, parseMultipart } from './multipart';
import { ApiRequest } from './request';

/**
 * An upload, or a contact import's checked lines beside it, untouched this long belongs to no
 * request any more: a request's files go when its response ends, and the longest of them, a
 * whole CSV imported, takes seconds.
 */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** Files per request: an MMS carries a handful of medias; one more for a CSV. */
const MAX_FILES = 11;

/**
 * Parses the query string and the body before authentication (the API key may be a form
 * field): urlencoded and multipart with PHP bracket syntax, JSON, and uploads to a
 * temporary folder under DATA_DIR that is emptied when the response ends. Size overflows are
 * HTTP 413; every parameter is then checked (`checkParams`) before any service sees it.
 */
@Injectable()
export class BodyParserMiddleware implements NestMiddleware {
  private readonly json: RequestHandler;
  private readonly urlencoded: RequestHandler;
  private readonly uploadDir: string;
  private readonly multipartLimits: MultipartLimits;
  private readonly maxParams: number;

  constructor(config: AppConfig) {
    const limits = config.limits;
    this.uploadDir = join(config.dataDir, 'tmp', 'uploads');
    mkdirSync(this.uploadDir, { recursive: true });
    removeStaleUploads(this.uploadDir);
    this.json = express.json({ limit: limits.bodyBytes, strict: false });
    this.urlencoded = express.text({
      type: 'application/x-www-form-urlencoded',
      limit: limits.bodyBytes,
    });
    this.multipartLimits = {
      fieldBytes: limits.bodyBytes,
      fileBytes: limits.fileBytes,
      largeFileBytes: limits.csvBytes,
      // The CSV uploads: numbers of a message, contacts to import.
      largeFileFields: new Set(['numbers_csv', 'contacts_csv']),
      files: MAX_FILES,
    };
    this.maxParams = limits.params;
  }

  use(request: ApiRequest, response: Response, next: NextFunction): void {
    const budget = new ParamBudget(this.maxParams);
    // Parsed here, once, with the request's budget: Express's own query parser is off.
    let query: Params;
    try {
      query = parseQueryString(queryStringOf(request.originalUrl), budget);
      checkParams(query);
    } catch (error) {
      next(error);
      return;
    }
    Object.defineProperty(request, 'query', {
      value: query,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    const done = (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      const body: unknown = request.body;
      try {
        if (typeof body === 'object' && body !== null) {
          checkParams(body as Params);
        }
      } catch (checkError) {
        next(checkError);
        return;
      }
      next();
    };
    const type = request.headers['content-type'] ?? '';
    if (type.startsWith('multipart/form-data')) {
      const parsing = parseMultipart(request, this.uploadDir, this.multipartLimits, budget);
      // Only multipart bodies bring files. They are removed once the parser let go of them
      // all: a file removed while still being written would be created again.
      response.on('close', () => {
        void parsing.catch(() => undefined).then(() => removeUploads(request));
      });
      void parsing.then((fields) => {
        try {
          request.body = paramsFromPairs(fields);
        } catch (error) {
          done(error);
          return;
        }
        done();
      }, done);
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      this.urlencoded(request, response, (error?: unknown) => {
        if (error) {
          done(bodyError(error));
          return;
        }
        try {
          request.body = parseQueryString(
            typeof request.body === 'string' ? request.body : '',
            budget,
          );
        } catch (parseError) {
          done(parseError);
          return;
        }
        done();
      });
    } else if (/^application\/([\w.+-]+\+)?json/.test(type)) {
      this.json(request, response, (error?: unknown) => {
        if (error) {
          done(bodyError(error));
          return;
        }
        const body: unknown = request.body;
        if (
          body !== undefined &&
          (typeof body !== 'object' || body === null || Array.isArray(body))
        ) {
          done(ApiError.invalid('the JSON body must be an object of parameters.'));
          return;
        }
        done();
      });
    } else {
      done();
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

/**
 * Removes the files a process killed mid-request left in the upload folder. Only stale ones:
 * other processes on the same DATA_DIR may be receiving uploads right now.
 */
function removeStaleUploads(dir: string): void {
  const before = Date.now() - STALE_UPLOAD_MS;
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isFile() && stat.mtimeMs < before) {
      rmSync(path, { force: true });
      removed++;
    }
  }
  if (removed > 0) {
    new Logger(BodyParserMiddleware.name).warn(
      `Removed ${removed} file(s) left in ${dir} by a request that never finished (the process stopped during it).`,
    );
  }
}
