import csvParser from 'csv-parser';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { ApiError } from '../errors/api-error';

/** A line longer than this is refused rather than buffered. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;

export interface CsvReadOptions {
  /** The parameter that messages name (`csv`, `contacts_csv`). */
  label: string;
  maxLineBytes?: number;
}

/**
 * Records read before the event loop is let go: the parser hands over a 64 KiB read (some 3,000
 * numbers, 40 ms of phone-number normalisation) in one go, which other requests waited for. A
 * request on MySQL waits one turn per round trip: 64 records (about 1 ms) held get_send_sms's
 * p50 beside a 200,000-row upload at 7 ms where 256 held it at 16 ms (bench:api).
 */
const RECORDS_PER_TURN = 64;

const ROW_TOO_LONG = 'Row exceeds the maximum size';
const UNCLOSED_QUOTE = 'Unclosed quote';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/**
 * Reads an uploaded CSV file as a stream, in RaspiSMS's format: `,` separates, `"` quotes (also
 * escaped as `\"`, as PHP's fgetcsv reads it), a UTF-8 BOM is ignored. Each record is handed to
 * `onRecord` with its line number (one per CSV record, the first being line 1) and awaited
 * before the next is read, so that memory holds a few records whatever the file's size; the event
 * loop is let go every RECORDS_PER_TURN records. Blank records (and records of separators only)
 * are skipped. A quote never closed, a line longer than `maxLineBytes` or a file that cannot be
 * read is INVALID_PARAMETER naming the label; what `onRecord` throws is thrown as is.
 */
export async function readCsvRecords(
  input: Readable,
  options: CsvReadOptions,
  onRecord: (values: string[], line: number) => void | Promise<void>,
): Promise<void> {
  const { label } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const parser = csvParser({ headers: false, maxRowBytes: maxLineBytes });
  const state = (parser as unknown as { state: { lineNumber: number; quoted: boolean } }).state;
  // csv-parser ends a file that is still inside quotes as if they closed there, reading the
  // rest of the file as one value: refused instead.
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
  let consumerError: { error: unknown } | undefined;
  let line = 0;
  try {
    await pipeline(
      input,
      new BackslashEscapes(),
      parser,
      async (records: AsyncIterable<Record<string, string>>) => {
        for await (const record of records) {
          line += 1;
          if (line % RECORDS_PER_TURN === 0) {
            await setImmediate();
          }
          const values = Object.values(record);
          if (values.every((value) => value === '')) {
            continue;
          }
          try {
            await onRecord(values, line);
          } catch (error) {
            consumerError = { error };
            throw error;
          }
        }
      },
    );
  } catch (error) {
    if (consumerError) {
      throw consumerError.error;
    }
    if (error instanceof Error && error.message === UNCLOSED_QUOTE) {
      // Every line before the quote was read: the next one holds it.
      throw ApiError.invalid(
        `${label} : line ${state.lineNumber + 1} opens a quoted value that is never closed ` +
          '(a " is missing).',
      );
    }
    if (error instanceof Error && error.message === ROW_TOO_LONG) {
      // Rows the parser had read ahead are dropped with the error: only its own count is right.
      throw ApiError.invalid(
        `${label} : line ${state.lineNumber + 1} is longer than ${maxLineBytes} bytes.`,
      );
    }
    throw ApiError.invalid(`${label} : the file could not be read.`);
  }
}

/** A header as a data key: Unicode letters (with their marks), digits and `_` only. */
export function dataKey(header: string): string | null {
  const key = header.replace(/[^\p{L}\p{M}\p{N}_]/gu, '');
  // A header with nothing left names no usable template variable.
  return key === '' ? null : key;
}

/** A value quoted for a message, shortened. */
export function quotedValue(value: string): string {
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
