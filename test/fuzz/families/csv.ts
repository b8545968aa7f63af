import fc from 'fast-check';
import { multipart } from '../support/params';
import { family, Family } from '../support/runner';
import { hostileText, phoneNumberText } from '../support/values';
import { KEYS } from '../support/world';
import { expectCode } from './bodies';

/*
 * `numbers_csv` files: valid ones, and every way a CSV goes wrong (quotes, line endings, columns,
 * encodings, sizes). A quote opened and never closed must be refused, naming the CSV, rather
 * than swallow the rest of the file as one value.
 */

const HEADERS = [
  'number',
  'number,firstname',
  'number,firstname,lastname',
  'Number,__proto__,constructor',
  'number,number',
  'number,first name,é',
  '',
  'number,"quoted, header"',
];

const CELLS = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'John',
      'Ann',
      '',
      'a b',
      '{{ 7*7 }}',
      'é',
      '😀',
      '=cmd|calc',
      '""',
      '"quoted"',
      '"a,b"',
      '"a\nb"',
      '"a\\"b"',
      '"a""b"',
      'a"b',
      '\\',
    ),
  },
  { weight: 1, arbitrary: hostileText.map((text) => text.replace(/[\ud800-\udfff]/g, '')) },
);

interface CsvCase {
  header: string;
  rows: string[][];
  eol: string;
  bom: boolean;
  /** An unterminated quoted cell ends the file. */
  unterminated: string | null;
  latin1: boolean;
}

/** Rows the server accepts: a quote left open after them is the only thing wrong. */
const VALID_ROWS = ['number,firstname', '+33612345678,John', '+14155552671,"Ann, Jr."'];

function csvText(value: CsvCase): Buffer {
  const lines =
    value.unterminated === null
      ? [value.header, ...value.rows.map((row) => row.join(','))]
      : VALID_ROWS;
  // A lone CR ends no line for the CSV reader: the valid rows keep a line ending that does.
  const eol = value.unterminated !== null && value.eol === '\r' ? '\r\n' : value.eol;
  let text = lines.join(eol) + eol;
  if (value.unterminated !== null) {
    text += `+33612345678,"${value.unterminated}`;
  }
  const bytes = Buffer.from(text, value.latin1 ? 'latin1' : 'utf8');
  return value.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes;
}

export const numbersCsv: Family = family(
  'numbers-csv',
  3,
  () =>
    fc.record({
      header: fc.constantFrom(...HEADERS),
      rows: fc.array(
        fc
          .tuple(
            phoneNumberText.map((number) => number.replace(/[\ud800-\udfff]/g, '')),
            fc.array(CELLS, { maxLength: 3 }),
          )
          .map(([number, cells]) => [number, ...cells]),
        { maxLength: 5 },
      ),
      eol: fc.constantFrom('\n', '\r\n', '\r', '\n\n'),
      bom: fc.boolean(),
      // Opened quotes hold no quote of their own: the file must end inside the value.
      unterminated: fc.option(fc.constantFrom('John', '', 'a,b', 'line\nbreak', 'Ann\r\n'), {
        freq: 3,
      }),
      latin1: fc.boolean(),
    }),
  async (probe, value: CsvCase) => {
    const boundary = 'fuzzcsv';
    const wire = {
      kind: 'http' as const,
      method: 'POST',
      path: `/api/scheduled/?api_key=${KEYS.main}`,
      headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]] as Array<
        [string, string]
      >,
      body: multipart(
        boundary,
        [
          ['text', 'Hi {{ contact.firstname }}'],
          ['at', '2099-01-01 00:00:00'],
        ],
        [
          {
            field: 'numbers_csv',
            filename: 'numbers.csv',
            type: 'text/csv',
            content: csvText(value),
          },
        ],
      ),
    };
    const unterminated = value.unterminated !== null;
    await probe.send(wire, {
      expect: (answer) =>
        unterminated
          ? expectCode(answer, 400, 2, 'a numbers_csv whose last quote is never closed', 'csv')
          : [],
    });
  },
);
