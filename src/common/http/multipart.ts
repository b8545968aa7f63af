import busboy from 'busboy';
import { randomBytes } from 'node:crypto';
import { createWriteStream, WriteStream } from 'node:fs';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError, ErrorCode } from '../errors/api-error';
import { ParamBudget, tooManyParams } from '../params/query-string';
import { ApiRequest, UploadedFile } from './request';

export interface MultipartLimits {
  /** All text fields together, names included: the same budget as a urlencoded body. */
  fieldBytes: number;
  fileBytes: number;
  /** Files of the fields named in `largeFileFields` may be this large instead. */
  largeFileBytes: number;
  largeFileFields: ReadonlySet<string>;
  files: number;
}

/** Room for part headers and boundaries: 64 parts with headers at busboy's 16 KiB limit. */
const MULTIPART_FRAMING_BYTES = 1024 * 1024;

/**
 * The most bytes a multipart body may take: its fields, one large file, the other files at the
 * file limit, and their framing. Busboy skips the data of a part that is neither a field nor a
 * file without counting it against any limit, so without this bound a client could stream such
 * data until the server's request timeout.
 */
export function maxMultipartBytes(limits: MultipartLimits): number {
  return (
    limits.fieldBytes +
    limits.largeFileBytes +
    limits.files * limits.fileBytes +
    MULTIPART_FRAMING_BYTES
  );
}

/** `medias[]`, `medias[2]` and `medias` all name the `medias` parameter. */
export function fieldBase(fieldname: string): string {
  return fieldname.replace(/\[.*$/, '');
}

function malformed(reason: string): ApiError {
  return ApiError.invalid(`the multipart body is malformed: ${reason}`);
}

/** Busboy's errors, in words that tell the caller what to fix. */
function fromParserError(error: Error): ApiError {
  switch (error.message) {
    case 'Unexpected end of form':
    case 'Unexpected end of file':
      return malformed('it ends before its closing boundary.');
    case 'Malformed part header':
      return malformed('the headers of a part are not valid, or longer than 16 KiB.');
    default:
      return malformed('it does not follow the multipart/form-data format.');
  }
}

/**
 * Streams a multipart body: files go to `uploadDir` under random names (never the client's
 * name as a path), text fields are returned as `[name, value]` pairs, for the bracket rules of
 * urlencoded bodies. Every limit is enforced while reading, so an oversized body is refused
 * before it is held in memory or on disk; text fields draw on the request's `budget`.
 * The files written are listed on `request.files` as soon as they start, for clean-up.
 *
 * The promise settles once every file written is closed, on success and on every failure (a
 * malformed or truncated body, a limit, a disk error, the client going away), so the caller's
 * clean-up finds each file on disk and no write can recreate a file after it was removed. No
 * error of the parser or of its streams is left without a listener: one would end the process.
 */
export function parseMultipart(
  request: ApiRequest,
  uploadDir: string,
  limits: MultipartLimits,
  budget: ParamBudget,
): Promise<Array<[string, string]>> {
  return new Promise((resolve, reject) => {
    const files: UploadedFile[] = [];
    request.files = files;
    const fields: Array<[string, string]> = [];
    let fieldBytes = 0;
    let pendingWrites = 0;
    let parserClosed = false;
    let settled = false;

    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        defParamCharset: 'utf8',
        limits: {
          fieldSize: limits.fieldBytes,
          fields: budget.remaining,
          files: limits.files,
          // Busboy signals this limit when it is reached, the others when they are exceeded.
          parts: budget.remaining + limits.files + 1,
          fileSize: Math.max(limits.fileBytes, limits.largeFileBytes),
        },
      });
    } catch {
      reject(malformed('its Content-Type has no boundary.'));
      return;
    }

    const inputs: Readable[] = [];
    const outputs: WriteStream[] = [];
    let failure: Error | undefined;
    const settleWhenWritten = () => {
      if (settled || pendingWrites > 0 || (!failure && !parserClosed)) {
        return;
      }
      settled = true;
      // Never a throw here: this runs in stream event handlers, where one would end the process.
      if (failure) {
        reject(failure);
      } else if (fields.length > budget.remaining) {
        reject(tooManyParams(budget.limit));
      } else {
        budget.take(fields.length);
        resolve(fields);
      }
    };
    const fail = (error: Error) => {
      if (failure || settled) {
        return;
      }
      failure = error;
      request.unpipe(parser);
      // Read the rest of the body away so that the error response can be delivered.
      request.resume();
      for (const input of inputs) {
        input.resume();
      }
      for (const output of outputs) {
        output.destroy();
      }
      settleWhenWritten();
    };
    /** An event handler that turns anything it throws into the request's failure. */
    const guarded =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A) => {
        try {
          handler(...args);
        } catch (error) {
          fail(error as Error);
        }
      };

    parser.on(
      'field',
      guarded((name: string | undefined, value: string | undefined, info: busboy.FieldInfo) => {
        if (failure) {
          return;
        }
        if (!name) {
          fail(malformed('a part has no field name (name="…" in its Content-Disposition).'));
          return;
        }
        // Busboy gives no text for a part in a charset it cannot decode.
        if (typeof value !== 'string') {
          fail(
            malformed(`the charset of the field ${fieldBase(name)} is not supported; send UTF-8.`),
          );
          return;
        }
        fieldBytes += name.length + value.length;
        if (info.valueTruncated) {
          fail(
            ApiError.tooLarge(
              ErrorCode.INVALID_PARAMETER,
              `${fieldBase(name)} : the value is too large.`,
            ),
          );
        } else if (fieldBytes > limits.fieldBytes) {
          fail(ApiError.tooLarge(ErrorCode.INVALID_PARAMETER, 'the form fields are too large.'));
        } else {
          fields.push([name, value]);
        }
      }),
    );

    parser.on(
      'file',
      guarded((name: string | undefined, stream: Readable, info: busboy.FileInfo) => {
        // Busboy reports a body cut short inside a file on the file's own stream.
        stream.on('error', (error) => fail(fromParserError(error)));
        inputs.push(stream);
        if (failure) {
          stream.resume();
          return;
        }
        if (!name) {
          stream.resume();
          fail(malformed('a part has no field name (name="…" in its Content-Disposition).'));
          return;
        }
        const base = fieldBase(name);
        const limit = limits.largeFileFields.has(base) ? limits.largeFileBytes : limits.fileBytes;
        const file: UploadedFile = {
          fieldname: name,
          originalname: info.filename ?? '',
          mimetype: info.mimeType,
          path: join(uploadDir, randomBytes(16).toString('hex') + safeExtension(info.filename)),
          size: 0,
        };
        files.push(file);
        const output = createWriteStream(file.path);
        outputs.push(output);
        pendingWrites += 1;
        output.on('close', () => {
          pendingWrites -= 1;
          settleWhenWritten();
        });
        // A disk that refuses the file is the server's failure, not the caller's: a 500.
        output.on('error', fail);
        const tooLarge = () => {
          stream.unpipe(output);
          output.destroy();
          stream.resume();
          fail(
            ApiError.tooLarge(
              ErrorCode.CANNOT_UPLOAD_FILE,
              `${base} : the file is larger than ${limit} bytes.`,
            ),
          );
        };
        stream.on(
          'data',
          guarded((chunk: Buffer) => {
            file.size += chunk.length;
            if (file.size > limit) {
              tooLarge();
            }
          }),
        );
        // Busboy stops a file at its own (largest) limit without passing the excess on.
        stream.on('limit', guarded(tooLarge));
        stream.pipe(output);
      }),
    );

    const tooMany = () => fail(tooManyParams(budget.limit));
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', () =>
      fail(
        ApiError.tooLarge(
          ErrorCode.CANNOT_UPLOAD_FILE,
          `at most ${limits.files} files can be sent at once.`,
        ),
      ),
    );
    parser.on('error', (error: Error) => fail(fromParserError(error)));
    parser.on('close', () => {
      parserClosed = true;
      settleWhenWritten();
    });
    const maxBytes = maxMultipartBytes(limits);
    const tooLargeBody = () =>
      fail(
        ApiError.tooLarge(
          ErrorCode.INVALID_PARAMETER,
          `the multipart body is larger than ${maxBytes} bytes.`,
        ),
      );
    if (Number(request.headers['content-length'] ?? 0) > maxBytes) {
      tooLargeBody();
    }
    let bodyBytes = 0;
    request.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes > maxBytes) {
        tooLargeBody();
      }
    });
    // A client that goes away mid-body sends no end: without this, its files would stay open.
    request.on('close', () => {
      if (!request.complete) {
        fail(malformed('the client closed the connection before the end of the body.'));
      }
    });

    request.pipe(parser);
  });
}

function safeExtension(name: string | undefined): string {
  const extension = extname(name ?? '').toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(extension) ? extension : '';
}
