import busboy from 'busboy';
import { randomBytes } from 'node:crypto';
import { createWriteStream, WriteStream } from 'node:fs';
import { extname, join } from 'node:path';
import { ApiError, ErrorCode } from '../errors/api-error';
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

/** `medias[]`, `medias[2]` and `medias` all name the `medias` parameter. */
export function fieldBase(fieldname: string): string {
  return fieldname.replace(/\[.*$/, '');
}

/**
 * Streams a multipart body: files go to `uploadDir` under random names (never the client's
 * name as a path), text fields are returned as a urlencoded string so that they are read with
 * exactly the bracket rules of urlencoded bodies. Every limit is enforced while reading, so an
 * oversized body is refused before it is held in memory or on disk.
 * The files written are listed on `request.files` as soon as they start, for clean-up.
 */
export function parseMultipart(
  request: ApiRequest,
  uploadDir: string,
  limits: MultipartLimits,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const files: UploadedFile[] = [];
    request.files = files;
    const pairs: string[] = [];
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
          fieldNameSize: 200,
          files: limits.files,
          fileSize: Math.max(limits.fileBytes, limits.largeFileBytes),
        },
      });
    } catch {
      reject(ApiError.invalid('the multipart body is malformed (no boundary).'));
      return;
    }

    const outputs: WriteStream[] = [];
    let failure: Error | undefined;
    // Settles once every file written so far is closed: the caller's clean-up then finds each
    // file on disk, and no write can recreate a file after it was removed.
    const settleWhenWritten = () => {
      if (settled || pendingWrites > 0 || (!failure && !parserClosed)) {
        return;
      }
      settled = true;
      if (failure) {
        reject(failure);
      } else {
        resolve(pairs.join('&'));
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
      for (const output of outputs) {
        output.destroy();
      }
      settleWhenWritten();
    };

    parser.on('field', (name, value, info) => {
      if (failure) {
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
        pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
      }
    });

    parser.on('file', (name, stream, info) => {
      if (failure) {
        stream.resume();
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
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
        if (file.size > limit) {
          tooLarge();
        }
      });
      // Busboy stops a file at its own (largest) limit without passing the excess on.
      stream.on('limit', tooLarge);
      stream.pipe(output);
    });

    parser.on('filesLimit', () =>
      fail(
        ApiError.tooLarge(
          ErrorCode.CANNOT_UPLOAD_FILE,
          `at most ${limits.files} files can be sent at once.`,
        ),
      ),
    );
    parser.on('error', () => fail(ApiError.invalid('the multipart body is malformed.')));
    parser.on('close', () => {
      parserClosed = true;
      settleWhenWritten();
    });

    request.pipe(parser);
  });
}

function safeExtension(name: string | undefined): string {
  const extension = extname(name ?? '').toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(extension) ? extension : '';
}
