import { Readable } from 'node:stream';
import { ApiError, ErrorCode, httpStatusOf } from '../common/errors/api-error';
import { dataKey } from '../common/csv/csv-records';
import { NumbersCsvOptions, parseNumbersCsv } from './numbers-csv';

const OPTIONS: NumbersCsvOptions = { defaultCountry: '', maxRows: 1000 };

/** The file as a stream of the given chunks (one chunk when given a string). */
function file(content: string | Buffer | Array<string | Buffer>): Readable {
  const chunks = Array.isArray(content) ? content : [content];
  return Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
}

function parse(content: string | Buffer | Array<string | Buffer>, options = OPTIONS) {
  return parseNumbersCsv(file(content), options);
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the CSV to be refused');
}

async function expectInvalid(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await failure(promise);
  expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
  expect(httpStatusOf(error)).toBe(400);
  expect(error.message).toBe(`You have specified an invalid parameter : ${message}`);
}

describe('parseNumbersCsv', () => {
  it('reads the example of the RaspiSMS documentation: number, then data named by the header', async () => {
    const csv =
      '0,lastname,firstname,birthdate,gender,vip\n' +
      '+33612345678,Doe,John,1970-01-01,male,1\n' +
      '+33612345679,Doe,Jane,1971-02-03,female,0\n';
    await expect(parse(csv)).resolves.toEqual([
      {
        number: '+33612345678',
        data: '{"lastname":"Doe","firstname":"John","birthdate":"1970-01-01","gender":"male","vip":"1"}',
      },
      {
        number: '+33612345679',
        data: '{"lastname":"Doe","firstname":"Jane","birthdate":"1971-02-03","gender":"female","vip":"0"}',
      },
    ]);
  });

  it('normalises numbers to E.164', async () => {
    await expect(parse('n\n+33 6 12-34.56 78\n')).resolves.toEqual([
      { number: '+33612345678', data: '[]' },
    ]);
  });

  it("accepts national numbers of the user's default_phone_country", async () => {
    await expect(parse('n\n0612345678\n', { ...OPTIONS, defaultCountry: 'fr' })).resolves.toEqual([
      { number: '+33612345678', data: '[]' },
    ]);
    await expectInvalid(
      parse('n\n0612345678\n'),
      'csv : line 2, column 1: "0612345678" is not a valid phone number.',
    );
  });

  it('refuses an invalid number naming its line, the header counting as line 1', async () => {
    await expectInvalid(
      parse('n,a\n+33612345678,x\nnot a number,y\n'),
      'csv : line 3, column 1: "not a number" is not a valid phone number.',
    );
  });

  it('refuses an empty number cell as an invalid number', async () => {
    await expectInvalid(
      parse('n,a\n,x\n'),
      'csv : line 2, column 1: "" is not a valid phone number.',
    );
  });

  it('shortens a long invalid value in the message', async () => {
    const error = await failure(parse(`n\n${'9'.repeat(100)}\n`));
    expect(error.message).toContain(`"${'9'.repeat(40)}…" is not a valid phone number.`);
  });

  it('removes every non-word character from the data headers, keeping Unicode letters, digits and _', async () => {
    const csv = 'phone, first-name ,"Ville (née)",code_2,«x»\n+33612345678,Jo,Paris,7,y\n';
    await expect(parse(csv)).resolves.toEqual([
      {
        number: '+33612345678',
        data: '{"firstname":"Jo","Villenée":"Paris","code_2":"7","x":"y"}',
      },
    ]);
  });

  it('ignores a column whose header has no word character left', async () => {
    await expect(parse('n,--,a\n+33612345678,lost,kept\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"kept"}' },
    ]);
  });

  it('pads a line shorter than the header and leaves empty values out, keeping "0"', async () => {
    await expect(parse('n,a,b,c\n+33612345678,0\n+33612345679,,x,\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"0"}' },
      { number: '+33612345679', data: '{"b":"x"}' },
    ]);
  });

  it('stores `[]` as the data of a number without any value', async () => {
    await expect(parse('n,a\n+33612345678\n')).resolves.toEqual([
      { number: '+33612345678', data: '[]' },
    ]);
  });

  it('refuses a line with more values than the header has columns, naming the line', async () => {
    await expectInvalid(
      parse('n,a\n+33612345678,x\n+33612345679,y,z\n'),
      'csv : line 3 has 3 values, more than the 2 columns of the header line.',
    );
  });

  it('lets the last of repeated headers win, also when its value is empty', async () => {
    await expect(parse('n,name,name,x,x\n+33612345678,first,second,kept,\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"name":"second"}' },
    ]);
  });

  it('takes the number from the first column even when a later header repeats its name', async () => {
    await expect(parse('n,n\n+33612345678,+33612345679\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"n":"+33612345679"}' },
    ]);
  });

  it('reads quoted values holding separators, newlines and doubled quotes', async () => {
    const csv = 'n,a,b\n"+33612345678","x, y","line 1\nline 2"\n+33612345679,"say ""hi""",\n';
    await expect(parse(csv)).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"x, y","b":"line 1\\nline 2"}' },
      { number: '+33612345679', data: '{"a":"say \\"hi\\""}' },
    ]);
  });

  it('reads a quote escaped with a backslash inside a quoted value, as fgetcsv does', async () => {
    await expect(parse('n,a,b\n+33612345678,"a \\"b\\", c",d\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"a \\"b\\", c","b":"d"}' },
    ]);
  });

  it('reads a backslash escape split across two chunks of the stream', async () => {
    await expect(parse(['n,a\n+33612345678,"x\\', '"y"\n'])).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"x\\"y"}' },
    ]);
  });

  it('counts a quoted value spanning several lines as one line', async () => {
    await expectInvalid(
      parse('n,a\n+33612345678,"1\n2\n3"\nbad\n'),
      'csv : line 3, column 1: "bad" is not a valid phone number.',
    );
  });

  it.each([
    ['a number', '0,firstname\n"+33612345678,John\n', 2],
    ['a later column', 'n,a\n+33612345678,x\n+33612345679,"y\n+33612345670,z\n', 3],
    ['the header', '"n,a\n+33612345678,x\n', 1],
    ['a last line without a line end', 'n,a\n+33612345678,"x', 2],
    ['a value whose quotes are doubled', 'n,a\n+33612345678,"say ""hi""\n', 2],
  ])(
    'refuses a quote that is never closed, in %s, naming the line where it opens',
    async (_case, csv, line) => {
      await expectInvalid(
        parse(csv),
        `csv : line ${line} opens a quoted value that is never closed (a " is missing).`,
      );
    },
  );

  it('refuses an unclosed quote whatever the chunks the file arrives in', async () => {
    await expectInvalid(
      parse(['n,a\n+3361234', '5678,"x\n+336', '12345679,y\n']),
      'csv : line 2 opens a quoted value that is never closed (a " is missing).',
    );
  });

  it('reads CRLF line ends', async () => {
    await expect(parse('n,a\r\n+33612345678,x\r\n+33612345679,y\r\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"x"}' },
      { number: '+33612345679', data: '{"a":"y"}' },
    ]);
  });

  it('reads a last line without a line end', async () => {
    await expect(parse('n\n+33612345678')).resolves.toEqual([
      { number: '+33612345678', data: '[]' },
    ]);
  });

  it('strips a UTF-8 BOM, also when it arrives split across chunks', async () => {
    // A spreadsheet's empty first row, exported as "CSV UTF-8": blank only once the BOM is gone.
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const csv = ',,\nn,city,zip\n+33612345678,Paris,75001\n';
    const expected = [{ number: '+33612345678', data: '{"city":"Paris","zip":"75001"}' }];
    await expect(parse(Buffer.concat([bom, Buffer.from(csv)]))).resolves.toEqual(expected);
    await expect(
      parse([bom.subarray(0, 1), bom.subarray(1, 2), bom.subarray(2), csv]),
    ).resolves.toEqual(expected);
  });

  it('skips blank lines and lines of separators only, still counting them in line numbers', async () => {
    await expect(parse('\nn,a\n\n+33612345678,x\n,\n\r\n+33612345679,y\n\n')).resolves.toEqual([
      { number: '+33612345678', data: '{"a":"x"}' },
      { number: '+33612345679', data: '{"a":"y"}' },
    ]);
    await expectInvalid(
      parse('n,a\n\n+33612345678,x\n\nbad,y\n'),
      'csv : line 5, column 1: "bad" is not a valid phone number.',
    );
  });

  it('refuses an empty file, a header alone and blank lines alone: no valid number', async () => {
    for (const csv of ['', 'n,a,b\n', 'n\n\n\n', '\n\n']) {
      await expectInvalid(parse(csv), 'csv : no valid number in the file.');
    }
  });

  it('refuses a line longer than the line limit, naming it, without reading it whole', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `+336123${String(i).padStart(5, '0')},a`);
    const csv = `n,a\n${rows.join('\n')}\n+33612399999,${'x'.repeat(500)}\n`;
    await expectInvalid(
      parse(csv, { ...OPTIONS, maxLineBytes: 200 }),
      'csv : line 62 is longer than 200 bytes.',
    );
  });

  it('refuses the data of a line that is longer than a data column holds once encoded', async () => {
    const csv = `n,a\n+33612345678,${'é'.repeat(33_000)}\n`;
    await expectInvalid(
      parse(csv, { ...OPTIONS, maxLineBytes: 100_000 }),
      'csv : line 2: its data is longer than 65535 bytes once JSON-encoded.',
    );
  });

  it('refuses more rows than allowed with 413 CANNOT_UPLOAD_FILE', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => `+3361234567${i}`);
    await expect(
      parse(`n\n${rows.join('\n')}\n`, { ...OPTIONS, maxRows: 4 }),
    ).resolves.toHaveLength(4);
    const error = await failure(
      parse(`n\n${rows.join('\n')}\n+33612345699\n`, { ...OPTIONS, maxRows: 4 }),
    );
    expect(error.code).toBe(ErrorCode.CANNOT_UPLOAD_FILE);
    expect(httpStatusOf(error)).toBe(413);
    expect(error.message).toBe(
      'Failed to upload or save an uploaded file : numbers_csv : the file has more than 4 rows; ' +
        'split it into several messages.',
    );
  });

  it('refuses a file that cannot be read with INVALID_PARAMETER', async () => {
    const broken = new Readable({
      read() {
        this.destroy(new Error('EIO'));
      },
    });
    await expectInvalid(parseNumbersCsv(broken, OPTIONS), 'csv : the file could not be read.');
  });
});

describe('dataKey', () => {
  it('keeps letters of every script, combining marks, digits and underscores only', () => {
    expect(dataKey('Prénom')).toBe('Prénom');
    expect(dataKey('date-of birth!')).toBe('dateofbirth');
    expect(dataKey('名前')).toBe('名前');
    expect(dataKey('e\u0301t\u00e9_1')).toBe('e\u0301t\u00e9_1');
    expect(dataKey(' - ')).toBeNull();
  });
});
