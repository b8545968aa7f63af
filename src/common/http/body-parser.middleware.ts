import { Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, RequestHandler, Response } from 'express';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import multer, { MulterError } from 'multer';
import { AppConfig } from '../../config/configuration';
import { ApiError, ErrorCode } from '../errors/api-error';
import { parseQueryString } from '../params/query-string';
import { ApiRequest } from './request';

/** Multipart file fields that may be larger than the per-file limit. */
const CSV_FIELDS = new Set(['numbers_csv']);

/**
 * Parses request bodies before authentication (the API key may be a form field, DECISIONS §3):
 * urlencoded and multipart with PHP bracket syntax, JSON, and uploads to a temporary folder
 * under DATA_DIR that is emptied when the response ends. Size overflows are HTTP 413.
 */
@Injectable()
export class BodyParserMiddleware implements NestMiddleware {
  private readonly json: RequestHandler;
  private readonly urlencoded: RequestHandler;
  private readonly multipart: RequestHandler;

  constructor(private readonly config: AppConfig) {
    const limits = config.limits;
    const uploadDir = join(config.dataDir, 'tmp', 'uploads');
    mkdirSync(uploadDir, { recursive: true });
    this.json = express.json({ limit: limits.bodyBytes, strict: false });
    this.urlencoded = express.text({
      type: 'application/x-www-form-urlencoded',
      limit: limits.bodyBytes,
    });
    this.multipart = multer({
      storage: multer.diskStorage({
        destination: uploadDir,
        // Never the client's name as a path: a random name, keeping only a sane extension.
        filename: (_req, file, done) =>
          done(null, randomBytes(16).toString('hex') + safeExtension(file.originalname)),
      }),
      limits: {
        fileSize: Math.max(limits.fileBytes, limits.csvBytes),
        fieldSize: limits.bodyBytes,
        fields: 100_000,
        files: 100,
      },
    }).any();
  }

  use(request: ApiRequest, response: Response, next: NextFunction): void {
    const type = request.headers['content-type'] ?? '';
    response.on('close', () => void removeUploads(request));
    if (type.startsWith('multipart/form-data')) {
      this.multipart(request, response, (error?: unknown) => {
        next(error ? multipartError(error) : this.checkFileSizes(request));
      });
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

  private checkFileSizes(request: ApiRequest): ApiError | undefined {
    for (const file of request.files ?? []) {
      const base = fieldBase(file.fieldname);
      const limit = CSV_FIELDS.has(base)
        ? this.config.limits.csvBytes
        : this.config.limits.fileBytes;
      if (file.size > limit) {
        return ApiError.tooLarge(
          ErrorCode.CANNOT_UPLOAD_FILE,
          `${base} : the file is larger than ${limit} bytes.`,
        );
      }
    }
    return undefined;
  }
}

/** `medias[]`, `medias[2]` and `medias` all name the `medias` parameter. */
export function fieldBase(fieldname: string): string {
  return fieldname.replace(/\[.*$/, '');
}

function safeExtension(name: string): string {
  const extension = extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(extension) ? extension : '';
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

function multipartError(error: unknown): ApiError {
  if (error instanceof MulterError) {
    const field = error.field ? `${fieldBase(error.field)} : ` : '';
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return ApiError.tooLarge(ErrorCode.CANNOT_UPLOAD_FILE, `${field}the file is too large.`);
      case 'LIMIT_FIELD_VALUE':
        return ApiError.tooLarge(ErrorCode.INVALID_PARAMETER, `${field}the value is too large.`);
      case 'LIMIT_FILE_COUNT':
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
        return ApiError.tooLarge(ErrorCode.INVALID_PARAMETER, 'the form has too many parts.');
      default:
        return ApiError.invalid(`the multipart body is malformed (${error.code}).`);
    }
  }
  return ApiError.invalid('the multipart body is malformed.');
}
