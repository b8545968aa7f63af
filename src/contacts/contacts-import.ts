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

/** Writes a chunk of lines whose names are all different, in the import's transaction. */
export type ChunkWriter = (lines: readonly ContactFields[]) => Promise<ImportCounts>;

/**
 * Lines written together: one lookup of the existing names and one INSERT per chunk, few
 * enough that the parameters stay far below the engines' limits.
 */
export const IMPORT_CHUNK = 500;

/**
 * post_import_contacts rules 3 and 4 (docs/api.md#post_import_contacts) over a stream of lines:
 * each line is checked as it comes, and written with the others of its chunk, so that memory
 * holds one chunk, not the file. What is kept of earlier lines is their name's key, to refuse
 * a name given twice. The caller runs it in one transaction: any refusal undoes every chunk.
 */
export class ContactImport {
  private chunk: ContactFields[] = [];
  /** The name keys of the lines read so far, with the place that gave them. */
  private readonly seen = new Map<string, string>();
  private readonly counts: ImportCounts = { created: 0, updated: 0 };
  private lines = 0;

  constructor(
    private readonly write: ChunkWriter,
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
    const earlier = this.seen.get(line.nameKey);
    if (earlier !== undefined) {
      throw ApiError.invalid(
        `${where}: the name ${JSON.stringify(line.name)} is already the name of ${earlier}.`,
      );
    }
    this.seen.set(line.nameKey, where.replace(/^.* : /, ''));
    this.chunk.push(line);
    if (this.chunk.length >= IMPORT_CHUNK) {
      await this.flush();
    }
  }

  /** Writes what is left; the counts of the whole import. */
  async finish(): Promise<ImportCounts> {
    await this.flush();
    return { ...this.counts };
  }

  private async flush(): Promise<void> {
    if (this.chunk.length === 0) {
      return;
    }
    const chunk = this.chunk;
    this.chunk = [];
    const { created, updated } = await this.write(chunk);
    this.counts.created += created;
    this.counts.updated += updated;
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
