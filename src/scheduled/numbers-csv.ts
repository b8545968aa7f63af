import csvParser from 'csv-parser';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { normalizePhoneNumber } from '../common/phone/phone-number';

/** A recipient read from a CSV file: an E.164 number and its template data as a JSON string. */
export interface CsvRecipient {
  number: string;
  data: string;
}

export interface NumbersCsvOptions {
  /** The user's `default_phone_country`, for national numbers. */
  defaultCountry: string;
  /** Rows past this many (header excluded) make the file too large (HTTP 413). */
  maxRows: number;
  /** A line longer than this is refused rather than buffered. */
  maxLineBytes?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

/** The `data` column of `scheduled_number` is a TEXT: 65,535 bytes on MySQL/MariaDB. */
export const MAX_DATA_BYTES = 65_535;

const ROW_TOO_LONG = 'Row exceeds the maximum size';
const UNCLOSED_QUOTE = 'Unclosed quote';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/**
 * Reads a `numbers_csv` file as a stream, in RaspiSMS's format: `,` separates, `"` quotes, the
 * first line is the header, the first column holds the number and the other headers, stripped of
 * every non-word character, name the template data. Line numbers count the header as line 1, one
 * per CSV record. Differences from RaspiSMS, which answered them with a 500 or an error on a blank
 * line: blank lines (and lines of separators only) are skipped, a line longer than the header is
 * refused with its number, so is a quote never closed, a UTF-8 BOM is ignored, and the number is
 * always the first column even when a later header repeats its name. Throws ApiError:
 * INVALID_PARAMETER `csv : …`, or 413 CANNOT_UPLOAD_FILE past `maxRows`.
 */
export async function parseNumbersCsv(
  input: Readable,
  options: NumbersCsvOptions,
): Promise<CsvRecipient[]> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const recipients: CsvRecipient[] = [];
  let keys: Array<string | null> | null = null;
  let line = 0;

  const collect = new Transform({
    objectMode: true,
    transform(row: Record<string, string>, _encoding, done: TransformCallback) {
      line += 1;
      try {
        const values = Object.values(row);
        if (values.every((value) => value === '')) {
          done();
          return;
        }
        if (keys === null) {
          keys = values.map((header, index) => (index === 0 ? null : dataKey(header)));
        } else {
          recipients.push(readRecipient(values, keys, line, options.defaultCountry));
          if (recipients.length > options.maxRows) {
            throw ApiError.tooLarge(
              ErrorCode.CANNOT_UPLOAD_FILE,
              `numbers_csv : the file has more than ${options.maxRows} rows; ` +
                'split it into several messages.',
            );
          }
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });

  const parser = csvParser({ headers: false, maxRowBytes: maxLineBytes });
  const state = (parser as unknown as { state: { lineNumber: number; quoted: boolean } }).state;
  // csv-parser ends a file that is still inside quotes as if they closed there, reading the
  // rest of the file as one value (where a number could still be found): refused instead.
  const flush = parser._flush?.bind(parser);
  parser._flush = (done: TransformCallback) => {
    if (state.quoted) {
      done(new Error(UNCLOSED_QUOTE));
    } else if (flush) {
      flush(done);
    } else {
      done();
    }
  };
  try {
    await pipeline(input, new BackslashEscapes(), parser, collect);
  } catch (error) {
    if (error instanceof ApiError) {
      throw error;
    }
    if (error instanceof Error && error.message === UNCLOSED_QUOTE) {
      // Every line before the quote was read: the next one holds it.
      throw ApiError.invalid(
        `csv : line ${state.lineNumber + 1} opens a quoted value that is never closed ` +
          '(a " is missing).',
      );
    }
    if (error instanceof Error && error.message === ROW_TOO_LONG) {
      // Rows the parser had read ahead are dropped with the error: only its own count is right.
      throw ApiError.invalid(
        `csv : line ${state.lineNumber + 1} is longer than ${maxLineBytes} bytes.`,
      );
    }
    throw ApiError.invalid('csv : the file could not be read.');
  }
  if (recipients.length === 0) {
    throw ApiError.invalid('csv : no valid number in the file.');
  }
  return recipients;
}

/** A header as a data key: Unicode letters (with their marks), digits and `_` only. */
export function dataKey(header: string): string | null {
  const key = header.replace(/[^\p{L}\p{M}\p{N}_]/gu, '');
  // A header with nothing left names no usable template variable.
  return key === '' ? null : key;
}

function readRecipient(
  values: string[],
  keys: Array<string | null>,
  line: number,
  defaultCountry: string,
): CsvRecipient {
  if (values.length > keys.length) {
    throw ApiError.invalid(
      `csv : line ${line} has ${values.length} values, more than the ${keys.length} columns ` +
        'of the header line.',
    );
  }
  const number = normalizePhoneNumber(values[0], defaultCountry);
  if (number === null) {
    throw ApiError.invalid(
      `csv : line ${line}, column 1: ${quoted(values[0])} is not a valid phone number.`,
    );
  }
  // Later columns of a repeated header overwrite earlier ones, empty values included (as PHP's
  // array_combine does); empty values are then left out.
  const data = new Map<string, string>();
  keys.forEach((key, index) => {
    if (key !== null) {
      data.set(key, values[index] ?? '');
    }
  });
  const present = [...data].filter(([, value]) => value !== '');
  // An empty map is `[]`, as PHP's json_encode writes it and as numbers without data hold.
  const encoded = present.length === 0 ? '[]' : JSON.stringify(Object.fromEntries(present));
  if (Buffer.byteLength(encoded) > MAX_DATA_BYTES) {
    throw ApiError.invalid(
      `csv : line ${line}: its data is longer than ${MAX_DATA_BYTES} bytes once JSON-encoded.`,
    );
  }
  return { number, data: encoded };
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * Drops a leading UTF-8 BOM and turns `\"` into `""`, so that the parser, which knows one escape
 * only, reads both the backslash escape of RaspiSMS's fgetcsv and the doubled quotes that
 * spreadsheets write. Both are ASCII bytes, never part of a multi-byte UTF-8 sequence.
 */
class BackslashEscapes extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private started = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let data: Buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.started) {
      if (data.length < BOM.length && BOM.subarray(0, data.length).equals(data)) {
        this.pending = data;
        done();
        return;
      }
      this.started = true;
      if (data.subarray(0, BOM.length).equals(BOM)) {
        data = data.subarray(BOM.length);
      }
    }
    // A backslash at the end may escape a quote of the next chunk.
    const held = data.length > 0 && data[data.length - 1] === BACKSLASH ? 1 : 0;
    this.pending = Buffer.from(data.subarray(data.length - held));
    const ready = Buffer.from(data.subarray(0, data.length - held));
    for (let i = 0; i + 1 < ready.length; i++) {
      if (ready[i] === BACKSLASH && ready[i + 1] === QUOTE) {
        ready[i] = QUOTE;
      }
    }
    done(null, ready);
  }

  override _flush(done: TransformCallback): void {
    done(null, this.pending);
  }
}
