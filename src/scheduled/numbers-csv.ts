import { Readable } from 'node:stream';
import { dataKey, quotedValue, readCsvRecords } from '../common/csv/csv-records';
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

/** The `data` column of `scheduled_number` is a TEXT: 65,535 bytes on MySQL/MariaDB. */
export const MAX_DATA_BYTES = 65_535;

/**
 * Reads a `numbers_csv` file as a stream, in RaspiSMS's format (common/csv/csv-records.ts): the
 * first line is the header, the first column holds the number and the other headers, stripped of
 * every non-word character, name the template data. Differences from RaspiSMS, which answered
 * them with a 500 or an error on a blank line: blank lines are skipped, a line longer than the
 * header is refused with its number, so is a quote never closed, and the number is always the
 * first column even when a later header repeats its name. Throws ApiError: INVALID_PARAMETER
 * `csv : …`, or 413 CANNOT_UPLOAD_FILE past `maxRows`.
 */
export async function parseNumbersCsv(
  input: Readable,
  options: NumbersCsvOptions,
): Promise<CsvRecipient[]> {
  const recipients: CsvRecipient[] = [];
  let keys: Array<string | null> | null = null;
  await readCsvRecords(
    input,
    { label: 'csv', maxLineBytes: options.maxLineBytes },
    (values, line) => {
      if (keys === null) {
        keys = values.map((header, index) => (index === 0 ? null : dataKey(header)));
        return;
      }
      recipients.push(readRecipient(values, keys, line, options.defaultCountry));
      if (recipients.length > options.maxRows) {
        throw ApiError.tooLarge(
          ErrorCode.CANNOT_UPLOAD_FILE,
          `numbers_csv : the file has more than ${options.maxRows} rows; ` +
            'split it into several messages.',
        );
      }
    },
  );
  if (recipients.length === 0) {
    throw ApiError.invalid('csv : no valid number in the file.');
  }
  return recipients;
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
      `csv : line ${line}, column 1: ${quotedValue(values[0])} is not a valid phone number.`,
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
