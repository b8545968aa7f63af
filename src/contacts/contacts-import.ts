import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { dataKey, readCsvRecords } from '../common/csv/csv-records';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { nameKey, parseEntryName } from '../common/params/entry-name';
import { ContactFields, contactFields, contactNumber, encodeData } from './contacts.params';

/** What an import did: contacts created, contacts updated. */
export interface ImportCounts {
  created: number;
  updated: number;
}

/** Takes a chunk of checked lines whose names are all different. */
export type ChunkSink = (lines: ContactFields[]) => Promise<void>;

/**
 * Lines handed on together, and written in one transaction. Each commit waits for the disk
 * (SQLite syncs its log at every commit); a transaction this long still holds SQLite's one
 * connection for only tens of milliseconds.
 */
export const IMPORT_CHUNK = 5000;

/**
 * post_import_contacts rules 3 and 4 (docs/api.md#post_import_contacts) over a stream of lines:
 * each line is checked as it comes, and handed on with the others of its chunk, so that memory
 * holds one chunk, not the file. What is kept of earlier lines, to refuse a name given twice, is
 * 12 bytes each in a NameSeen table: 2.4 MiB at the 200,000 rows a file may have, where the
 * names themselves in a Map took 13 MB per 100,000 lines. The caller keeps the chunks until the
 * whole import is checked, and writes them only then: a refused line leaves nothing written,
 * although each chunk commits on its own.
 */
export class ContactImport {
  private chunk: ContactFields[] = [];
  /** The name keys of the lines read so far, with the number of the place that gave them. */
  private readonly seen = new NameSeen();
  private lines = 0;

  constructor(
    private readonly sink: ChunkSink,
    /** Lines past this many (a CSV's header excluded) make the import too large (HTTP 413). */
    private readonly maxRows: number,
    /** Names the source in the message of a source too large. */
    private readonly source: string,
  ) {}

  /** Adds a checked line, `where` naming it in errors (`contacts_csv : line 7`). */
  async add(line: ContactFields, where: string): Promise<void> {
    this.lines += 1;
    if (this.lines > this.maxRows) {
      throw ApiError.tooLarge(
        ErrorCode.CANNOT_UPLOAD_FILE,
        `${this.source} : more than ${this.maxRows} contacts; split the import.`,
      );
    }
    // `where` ends with the place's number (`… : line 7`, `contacts[3]`); the earlier place is
    // told as this one with its number.
    const place = where.replace(/^.* : /, '');
    const earlier = this.seen.add(line.nameKey, Number(/(\d+)\D*$/.exec(place)?.[1] ?? 0));
    if (earlier !== undefined) {
      throw ApiError.invalid(
        `${where}: the name ${JSON.stringify(line.name)} is already the name of ` +
          `${place.replace(/\d+(?=\D*$)/, String(earlier))}.`,
      );
    }
    this.chunk.push(line);
    if (this.chunk.length >= IMPORT_CHUNK) {
      await this.flush();
    }
  }

  /** Hands on the lines not handed on yet: a full chunk, or the last lines once all are read. */
  async flush(): Promise<void> {
    if (this.chunk.length === 0) {
      return;
    }
    const chunk = this.chunk;
    this.chunk = [];
    await this.sink(chunk);
  }
}

/**
 * A set of name keys, each with a number, held as a 64-bit digest of the key and the number in
 * typed arrays (open addressing): 12 bytes per key instead of the key itself. Two different keys
 * share a digest with a probability of about 10^-9 at 200,000 keys; the import would then refuse
 * the second as a duplicate of the first, a refusal its message lets the user check.
 */
export class NameSeen {
  private digests = new Uint32Array(2 * 1024);
  private numbers = new Uint32Array(1024);
  private size = 0;

  /** Adds `key` with `number`; the number given with it before, if it was there. */
  add(key: string, number: number): number | undefined {
    const digest = createHash('sha1').update(key).digest();
    // 0/0 marks a free slot.
    const high = digest.readUInt32LE(0);
    const low = digest.readUInt32LE(4) || 1;
    const mask = this.numbers.length - 1;
    for (let slot = low & mask; ; slot = (slot + 1) & mask) {
      const slotLow = this.digests[2 * slot + 1];
      if (slotLow === 0) {
        this.digests[2 * slot] = high;
        this.digests[2 * slot + 1] = low;
        this.numbers[slot] = number;
        this.size += 1;
        if (this.size * 2 > this.numbers.length) {
          this.grow();
        }
        return undefined;
      }
      if (slotLow === low && this.digests[2 * slot] === high) {
        return this.numbers[slot];
      }
    }
  }

  private grow(): void {
    const { digests, numbers } = this;
    this.digests = new Uint32Array(digests.length * 2);
    this.numbers = new Uint32Array(numbers.length * 2);
    const mask = this.numbers.length - 1;
    for (let old = 0; old < numbers.length; old += 1) {
      const low = digests[2 * old + 1];
      if (low === 0) {
        continue;
      }
      let slot = low & mask;
      while (this.digests[2 * slot + 1] !== 0) {
        slot = (slot + 1) & mask;
      }
      this.digests[2 * slot] = digests[2 * old];
      this.digests[2 * slot + 1] = low;
      this.numbers[slot] = numbers[old];
    }
  }
}

/**
 * Reads a `contacts_csv` file into `batch`, by the CSV rules of numbers_csv
 * (common/csv/csv-records.ts): a header line naming `name` and `number` (any case, any order),
 * the other columns data keys, stripped as numbers_csv's are; empty values are left out of the
 * data. Each line's error names its line.
 */
export async function importContactsCsv(
  input: Readable,
  batch: ContactImport,
  country: string,
): Promise<void> {
  let header: CsvHeader | undefined;
  await readCsvRecords(input, { label: 'contacts_csv' }, async (values, line) => {
    if (header === undefined) {
      header = readHeader(values);
      return;
    }
    const where = `contacts_csv : line ${line}`;
    await batch.add(
      lineOrError(where, () => readCsvLine(values, header!, country)),
      where,
    );
  });
  if (header === undefined) {
    throw ApiError.invalid(
      'contacts_csv : the file is empty; its first line must name the columns name and number.',
    );
  }
}

/** Reads the JSON list of contacts into `batch`, each element as post_contact's fields. */
export async function importContactsList(
  items: readonly unknown[],
  batch: ContactImport,
  country: string,
): Promise<void> {
  for (const [index, item] of items.entries()) {
    const where = `contacts[${index}]`;
    await batch.add(
      lineOrError(where, () => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) {
          throw ApiError.invalid('must be an object {name, number, data}.');
        }
        const fields = item as Record<string, unknown>;
        if (fields.name === undefined || fields.name === null) {
          throw ApiError.invalid('name is required.');
        }
        if (fields.number === undefined || fields.number === null) {
          throw ApiError.invalid('number is required.');
        }
        return { data: '{}', ...contactFields(fields, country) } as ContactFields;
      }),
      where,
    );
  }
}

interface CsvHeader {
  name: number;
  number: number;
  /** The data key of each column, null for the name, the number and unusable headers. */
  keys: Array<string | null>;
}

function readHeader(values: readonly string[]): CsvHeader {
  const columns = values.map((value) => value.trim().toLowerCase());
  const position = (column: 'name' | 'number') => {
    const found = columns.filter((value) => value === column).length;
    if (found !== 1) {
      throw ApiError.invalid(
        `contacts_csv : line 1, the header, must name one column ${column}` +
          `${found > 1 ? `, not ${found}` : ''}.`,
      );
    }
    return columns.indexOf(column);
  };
  const name = position('name');
  const number = position('number');
  return {
    name,
    number,
    keys: values.map((value, index) =>
      index === name || index === number ? null : dataKey(value),
    ),
  };
}

function readCsvLine(values: readonly string[], header: CsvHeader, country: string): ContactFields {
  if (values.length > header.keys.length) {
    throw ApiError.invalid(
      `it has ${values.length} values, more than the ${header.keys.length} columns of the header.`,
    );
  }
  const name = parseEntryName(values[header.name] ?? '') as string;
  const number = contactNumber(values[header.number] ?? '', country);
  // As in numbers_csv: a later column of a repeated header wins, empty values are left out.
  const data = new Map<string, string>();
  header.keys.forEach((key, index) => {
    if (key !== null) {
      data.set(key, values[index] ?? '');
    }
  });
  return {
    name,
    nameKey: nameKey(name),
    number,
    data: encodeData([...data].filter(([, value]) => value !== '')),
  };
}

/**
 * Runs `read`; its error becomes an INVALID_PARAMETER naming where the line is: a bad line is a
 * bad file, whatever the field.
 */
function lineOrError(where: string, read: () => ContactFields): ContactFields {
  try {
    return read();
  } catch (error) {
    if (error instanceof ApiError) {
      throw ApiError.invalid(`${where}: ${error.detail ?? ''}`);
    }
    throw error;
  }
}
