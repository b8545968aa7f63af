import { Readable } from 'node:stream';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { nameKey } from '../common/params/entry-name';
import { ContactImport, IMPORT_CHUNK, importContactsCsv, NameSeen } from './contacts-import';
import { ContactFields } from './contacts.params';

/** Records the chunks handed on. */
function recorder() {
  const chunks: ContactFields[][] = [];
  const write = (lines: ContactFields[]) => {
    chunks.push([...lines]);
    return Promise.resolve();
  };
  return { chunks, write };
}

const line = (name: string): ContactFields => ({
  name,
  nameKey: nameKey(name),
  number: '+33612345678',
  data: '{}',
});

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('not refused');
}

describe('ContactImport', () => {
  it('hands on full chunks as lines come, the rest when flushed, each line once in its order', async () => {
    const { chunks, write } = recorder();
    const batch = new ContactImport(write, 100_000, 'contacts');

    for (let i = 0; i < IMPORT_CHUNK * 2 + 3; i++) {
      await batch.add(line(`c${i}`), `contacts[${i}]`);
    }
    expect(chunks.map((chunk) => chunk.length)).toEqual([IMPORT_CHUNK, IMPORT_CHUNK]);

    await batch.flush();
    await batch.flush();
    expect(chunks.map((chunk) => chunk.length)).toEqual([IMPORT_CHUNK, IMPORT_CHUNK, 3]);
    expect(chunks.flat().map((fields) => fields.name)).toEqual(
      Array.from({ length: IMPORT_CHUNK * 2 + 3 }, (_, i) => `c${i}`),
    );
  });

  it('refuses a name given twice in any case, naming both places, even chunks apart', async () => {
    const { write } = recorder();
    const batch = new ContactImport(write, 100_000, 'contacts_csv');
    await batch.add(line('Ann'), 'contacts_csv : line 2');
    for (let i = 0; i < IMPORT_CHUNK; i++) {
      await batch.add(line(`c${i}`), `contacts_csv : line ${i + 3}`);
    }

    const error = await refusal(batch.add(line('aNN'), 'contacts_csv : line 503'));

    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.detail).toBe(
      'contacts_csv : line 503: the name "aNN" is already the name of line 2.',
    );
  });

  it('refuses more lines than allowed with 413 CANNOT_UPLOAD_FILE', async () => {
    const { write } = recorder();
    const batch = new ContactImport(write, 2, 'contacts_csv');
    await batch.add(line('a'), 'contacts_csv : line 2');
    await batch.add(line('b'), 'contacts_csv : line 3');

    const error = await refusal(batch.add(line('c'), 'contacts_csv : line 4'));

    expect({ code: error.code, reason: error.reason }).toEqual({
      code: ErrorCode.CANNOT_UPLOAD_FILE,
      reason: 'too_large',
    });
  });
});

describe('importContactsCsv', () => {
  const read = async (csv: string, country = '') => {
    const { chunks, write } = recorder();
    const batch = new ContactImport(write, 100, 'contacts_csv');
    await importContactsCsv(Readable.from([Buffer.from(csv)]), batch, country);
    await batch.flush();
    return chunks.flat();
  };

  it('finds name and number in any case and order; other headers become data keys, empty values left out', async () => {
    expect(await read('City, NUMBER ,e-mail,Name\nLyon,06 12 34 56 78,,  Ann  \n', 'fr')).toEqual([
      { name: 'Ann', nameKey: 'ann', number: '+33612345678', data: '{"City":"Lyon"}' },
    ]);
  });

  it('names the line and the reason of a bad line', async () => {
    const error = await refusal(read('name,number\nAnn,+33612345678\nBob,12\n'));

    expect(error.detail).toBe(
      'contacts_csv : line 3: number : "12" is not a valid phone number; use the international format (+…).',
    );
  });
});

describe('NameSeen', () => {
  it('tells each key given again, with its first number, across its growths', () => {
    const seen = new NameSeen();
    for (let index = 0; index < 50_000; index += 1) {
      expect(seen.add(`contact ${index}`, index + 2)).toBeUndefined();
    }
    for (let index = 0; index < 50_000; index += 997) {
      expect(seen.add(`contact ${index}`, 1)).toBe(index + 2);
    }
    expect(seen.add('contact 50000', 9)).toBeUndefined();
  });
});
