import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Contact } from '../../src/contacts/entities/contact.entity';
import { Media } from '../../src/media/entities/media.entity';
import { HIDDEN_SEND_AFTER } from '../../src/messages/hidden-messages';
import { NUMBERS_PER_TRANSACTION } from '../../src/scheduled/scheduled-hidden-writer';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makeMedia,
  makePhone,
  makePhoneGroup,
  makeScheduled,
  makeUser,
} from '../support/factories';
import {
  countRows,
  countScheduledRows,
  filesUnder,
  PNG,
  storedScheduled,
} from '../support/scheduled.factories';
import { curlMultipart, FormPart } from '../support/curl';
import { freezeDate, withQueries } from '../support/instruments';

/*
 * post_scheduled and delete_scheduled (docs/api.md) over real HTTP against the real app,
 * on every database engine, in a service whose time zone is Europe/Paris. Every rule is tested
 * in the order of docs/api.md; the stored rows are read back from the database.
 */

const INVALID_PARAMETER = 2;
const MISSING_PARAMETER = 4;
const CANNOT_CREATE = 8;
const CANNOT_DELETE = 32;
const CANNOT_UPLOAD_FILE = 64;
const INVALID = 'You have specified an invalid parameter : ';
const MISSING = 'One require parameter is missing : ';
const TZ = 'Europe/Paris';

/** The CSV of the RaspiSMS documentation, with its header. */
const DOC_CSV =
  '0,lastname,firstname,birthdate,gender,vip\n' +
  '+33612345678,Doe,John,1970-01-01,male,1\n' +
  '+33612345679,Doe,Jane,1980-02-03,female,0\n';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The error envelope, its HTTP status, and a message that starts with `message`. */
function expectError(response: Response, status: number, error: number, message: string): void {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status,
    body: {
      error,
      message: expect.stringMatching(new RegExp(`^${escapeRegExp(message)}`)),
      response: null,
      next: null,
      prev: null,
    },
  });
}

function expectCreated(response: Response): number {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status: 201,
    body: { error: 0, message: null, response: expect.any(Number), next: null, prev: null },
  });
  return response.body.response as number;
}

describeEachDatabase('post_scheduled', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { TZ, MAX_CSV_ROWS: '1000' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** POSTs a JSON body (an object) or a raw urlencoded body (a string), as curl -d sends it. */
  const post = (apiKey: string, body: Record<string, unknown> | string) =>
    typeof body === 'string'
      ? api(t, apiKey).form('/api/scheduled/').send(body)
      : api(t, apiKey).json('/api/scheduled/', body);
  const postMultipart = (apiKey: string, parts: FormPart[]) => {
    const { body, contentType } = curlMultipart(parts);
    return api(t, apiKey).post('/api/scheduled/').set('Content-Type', contentType).send(body);
  };
  const mediaFolder = (userId: number) => join(t.config.dataDir, 'media', String(userId));

  it('refuses a request without an API key with 401 and does not create anything', async () => {
    const { user } = await makeUser(ds);
    const response = await request(t.url)
      .post('/api/scheduled/')
      .type('form')
      .send('text=Hello&numbers=%2B33612345678');
    expectError(response, 401, 1, 'Invalid API Key.');
    expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
  });

  it('is documented: operation ids, and every body field with the two files as binary parts', async () => {
    interface Operation {
      operationId: string;
      requestBody?: {
        content: Record<string, { schema: { properties: Record<string, unknown> } }>;
      };
    }
    const document = (await request(t.url).get('/api/docs-json')).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    expect(document.paths['/api/scheduled'].post.operationId).toBe('post_scheduled');
    expect(document.paths['/api/send-sms'].get.operationId).toBe('get_send_sms');
    expect(document.paths['/api/scheduled/{id}'].delete.operationId).toBe('delete_scheduled');
    const content = document.paths['/api/scheduled'].post.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    const fields = content['multipart/form-data'].schema.properties;
    expect(Object.keys(fields).sort()).toEqual(
      [
        'at',
        'text',
        'id_phone',
        'id_phone_group',
        'flash',
        'mms',
        'tag',
        'validity',
        'priority',
        'window',
        'numbers',
        'contacts',
        'groups',
        'conditional_groups',
        'numbers_csv',
        'medias',
        'idempotency_key',
      ].sort(),
    );
    expect(fields.numbers_csv).toMatchObject({ type: 'string', format: 'binary' });
    expect(fields.medias).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'binary' },
    });
  });

  describe('success', () => {
    it('stores the message with UTC `at`, flags 0/1, normalised numbers and answers 201 with its id', async () => {
      const { user, apiKey } = await makeUser(ds);

      const id = expectCreated(
        await post(apiKey, {
          at: '2030-07-01 12:00:00',
          text: 'Hello {{ contact.firstname }}',
          flash: true,
          tag: 'campaign-1',
          numbers: ['+33 6 12 34 56 78'],
        }),
      );

      const stored = await storedScheduled(ds, id);
      expect(stored.scheduled).toEqual({
        id,
        id_user: user.id,
        at: '2030-07-01 10:00:00',
        text: 'Hello {{ contact.firstname }}',
        flash: 1,
        mms: 0,
        id_phone: null,
        id_phone_group: null,
        tag: 'campaign-1',
        validity: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        updated_at: null,
        priority: 0,
        send_window: null,
        effective_window: null,
        send_after: '2030-07-01 10:00:00',
        hidden: 0,
      });
      expect(stored.numbers).toEqual([{ number: '+33612345678', data: '[]' }]);
    });

    it('reads the form of the RaspiSMS documentation sent raw, as `curl -d` sends it', async () => {
      const { apiKey } = await makeUser(ds);

      const id = expectCreated(
        await post(apiKey, 'text=My message&numbers[]=%2B33612345678&numbers[]=%2B33612345679'),
      );

      const stored = await storedScheduled(ds, id);
      expect(stored.scheduled?.text).toBe('My message');
      expect(stored.numbers).toEqual([
        { number: '+33612345678', data: '[]' },
        { number: '+33612345679', data: '[]' },
      ]);
    });

    it('reads numbers with template data sent raw (`curl -d`) and encoded (`curl --data-urlencode`)', async () => {
      const { apiKey } = await makeUser(ds);
      const raw =
        'text=Hello {{ contact.firstname }}' +
        '&numbers[0][number]=%2B33612345678&numbers[0][data]={"firstname":"John"}';
      const encoded =
        'text=Hello%20%7B%7B%20contact.firstname%20%7D%7D' +
        '&numbers[0][number]=%2B33612345678' +
        '&numbers[0][data]=%7B%22firstname%22%3A%22John%22%7D';

      for (const body of [raw, encoded]) {
        const id = expectCreated(await post(apiKey, body));
        const stored = await storedScheduled(ds, id);
        expect(stored.scheduled?.text).toBe('Hello {{ contact.firstname }}');
        expect(stored.numbers).toEqual([{ number: '+33612345678', data: '{"firstname":"John"}' }]);
      }
    });

    it('reads a multipart form with a media and a CSV, as `curl -F` sends it', async () => {
      const { user, apiKey } = await makeUser(ds);

      const id = expectCreated(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Hello {{ contact.firstname }}' },
          { name: 'mms', value: '1' },
          { name: 'numbers[]', value: '+33612345670' },
          { name: 'medias[]', value: PNG, filename: 'image.png' },
          { name: 'numbers_csv', value: DOC_CSV, filename: 'numbers.csv' },
        ]),
      );

      const stored = await storedScheduled(ds, id);
      expect(stored.scheduled?.mms).toBe(1);
      expect(stored.numbers).toEqual([
        { number: '+33612345670', data: '[]' },
        {
          number: '+33612345678',
          data: '{"lastname":"Doe","firstname":"John","birthdate":"1970-01-01","gender":"male","vip":"1"}',
        },
        {
          number: '+33612345679',
          data: '{"lastname":"Doe","firstname":"Jane","birthdate":"1980-02-03","gender":"female","vip":"0"}',
        },
      ]);
      expect(stored.medias).toHaveLength(1);
      const path = stored.medias[0].path;
      expect(path).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.png$`));
      expect(readFileSync(join(t.config.dataDir, 'media', path))).toEqual(PNG);
    });

    it('answers with the envelope on the path without its trailing slash too', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).json('/api/scheduled', {
        text: 'Hi',
        numbers: '+33612345678',
      });
      expectCreated(response);
    });

    it('reads parameters from the query string of a POST too', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await request(t.url)
        .post('/api/scheduled/')
        .query({ api_key: apiKey, text: 'From the query', 'numbers[]': '+33612345678' });
      const stored = await storedScheduled(ds, expectCreated(response));
      expect(stored.scheduled?.text).toBe('From the query');
    });
  });

  describe('rule 1: text is required; at defaults to now', () => {
    it('refuses a missing or empty text with MISSING_PARAMETER naming text', async () => {
      const { user, apiKey } = await makeUser(ds);
      for (const body of ['numbers=%2B33612345678', 'text=&numbers=%2B33612345678']) {
        expectError(await post(apiKey, body), 400, MISSING_PARAMETER, `${MISSING}text`);
      }
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('keeps a text "0": only an absent or empty text is missing', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(await post(apiKey, 'text=0&numbers=%2B33612345678'));
      expect((await storedScheduled(ds, id)).scheduled?.text).toBe('0');
    });

    it('stores now (in UTC) when at is absent or empty', async () => {
      const { apiKey } = await makeUser(ds);
      freezeDate('2031-02-03T04:05:06Z');
      for (const body of [
        'text=Now&numbers=%2B33612345678',
        'text=Now&at=&numbers=%2B33612345678',
        { text: 'Now', at: null, numbers: '+33612345678' },
      ]) {
        const id = expectCreated(await post(apiKey, body));
        expect((await storedScheduled(ds, id)).scheduled?.at).toBe('2031-02-03 04:05:06');
      }
    });
  });

  describe('rule 2: at and text must be strings', () => {
    // The JSON values refused, and the order of the checks: scheduled.params.spec.ts.
    it('refuses an at that is not a string with INVALID_PARAMETER naming at', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&at[]=2030-01-01 00:00:00&numbers=%2B33612345678'),
        400,
        INVALID_PARAMETER,
        `${INVALID}at must be a string.`,
      );
    });

    it('refuses a text that is not a string with INVALID_PARAMETER naming text', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text[]=Hi&numbers=%2B33612345678'),
        400,
        INVALID_PARAMETER,
        `${INVALID}text must be a string.`,
      );
    });
  });

  describe('rule 3: text length', () => {
    it('accepts 1000 code points, astral characters counting one each, and stores them intact', async () => {
      const { apiKey } = await makeUser(ds);
      const text = '😀'.repeat(500) + 'é'.repeat(500);
      const id = expectCreated(await post(apiKey, { text, numbers: '+33612345678' }));
      expect((await storedScheduled(ds, id)).scheduled?.text).toBe(text);
    });
  });

  describe('rule 3: with templating on, a template that does not compile', () => {
    it("refuses it with INVALID_PARAMETER quoting the parser's reason and where, and stores nothing", async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      expectError(
        await post(
          apiKey,
          'text=Hello {{ contact.firstname &numbers[]=%2B33612345678&id_phone=' + phone.id,
        ),
        400,
        INVALID_PARAMETER,
        `${INVALID}text : The template does not compile: Unable to find closing bracket '}}' ` +
          'opened at line 1, column 7.',
      );
      expect(await countScheduledRows(ds, user.id)).toMatchObject({ scheduled: 0 });
    });

    it('names the tag left open and the one a sandbox refuses', async () => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await post(apiKey, { text: 'Hi\n{% if contact.vip %}VIP', numbers: '+33612345678' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}text : The template does not compile: the tag {% if %} is never closed: ` +
          'it needs its {% endif %}.',
      );
      expectError(
        await post(apiKey, { text: '{% include "x" %}', numbers: '+33612345678' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}text : The template does not compile: the tag "include" is not allowed.`,
      );
    });

    it('accepts it as plain text when templating is off', async () => {
      const { apiKey } = await makeUser(ds, { settings: { templating: '0' } });
      expectCreated(
        await post(apiKey, { text: 'Hello {{ contact.firstname ', numbers: '+33612345678' }),
      );
    });
  });

  describe('rule 4: at format', () => {
    it('refuses an at that is not a calendar-valid YYYY-MM-DD HH:MM:SS with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      // The other formats refused: scheduled.params.spec.ts.
      expectError(
        await post(apiKey, { text: 'Hi', at: '2030-02-30 10:00:00', numbers: '+33612345678' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}at must be a date of format "YYYY-MM-DD HH:MM:SS"`,
      );
    });

    it('reads at in the service time zone and stores it in UTC, summer and winter', async () => {
      const { apiKey } = await makeUser(ds);
      const cases: Array<[string, string]> = [
        ['2030-07-01 12:00:00', '2030-07-01 10:00:00'],
        ['2030-01-15 00:30:00', '2030-01-14 23:30:00'],
      ];
      for (const [at, utc] of cases) {
        const id = expectCreated(await post(apiKey, { text: 'Hi', at, numbers: '+33612345678' }));
        expect((await storedScheduled(ds, id)).scheduled?.at).toBe(utc);
      }
    });

    it('accepts a date in the past: the message is due at once', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await post(apiKey, { text: 'Hi', at: '2001-01-01 01:00:00', numbers: '+33612345678' }),
      );
      expect((await storedScheduled(ds, id)).scheduled?.at).toBe('2001-01-01 00:00:00');
    });
  });

  describe('flash, mms and tag formats', () => {
    it('stores flash and mms as 1 for 1, true, on, yes and as 0 for 0, false, off, no, empty', async () => {
      const { apiKey } = await makeUser(ds);
      for (const [value, stored] of [
        ['1', 1],
        ['true', 1],
        ['on', 1],
        ['YES', 1],
        ['0', 0],
        ['false', 0],
        ['off', 0],
        ['no', 0],
        ['', 0],
      ] as const) {
        const id = expectCreated(
          await post(apiKey, `text=Hi&numbers=%2B33612345678&flash=${value}&mms=${value}`),
        );
        const row = (await storedScheduled(ds, id)).scheduled;
        expect({ value, flash: row?.flash, mms: row?.mms }).toEqual({
          value,
          flash: stored,
          mms: stored,
        });
      }
      const id = expectCreated(
        await post(apiKey, { text: 'Hi', numbers: '+33612345678', flash: true, mms: false }),
      );
      expect((await storedScheduled(ds, id)).scheduled).toMatchObject({ flash: 1, mms: 0 });
    });

    it('refuses a flash that is not a boolean with INVALID_PARAMETER naming it', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&numbers=%2B33612345678&flash=maybe'),
        400,
        INVALID_PARAMETER,
        `${INVALID}flash must be a boolean`,
      );
    });

    it('stores a tag of up to 1000 characters as given, and an empty tag as none', async () => {
      const { apiKey } = await makeUser(ds);
      const tag = 'ü'.repeat(1000);
      const long = expectCreated(await post(apiKey, { text: 'Hi', tag, numbers: '+33612345678' }));
      expect((await storedScheduled(ds, long)).scheduled?.tag).toBe(tag);
      const empty = expectCreated(await post(apiKey, 'text=Hi&tag=&numbers=%2B33612345678'));
      expect((await storedScheduled(ds, empty)).scheduled?.tag).toBeNull();
    });
  });

  describe("rule 5: mms needs the user's mms setting", () => {
    it('refuses mms while the mms setting is off with INVALID_PARAMETER naming mms', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { mms: '0' } });
      expectError(
        await post(apiKey, { text: 'Hi', mms: true, numbers: '+33612345678' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}mms is set to true, but MMS are disabled`,
      );
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('accepts mms false while the setting is off, and mms true while it is on', async () => {
      const off = await makeUser(ds, { settings: { mms: '0' } });
      expectCreated(await post(off.apiKey, { text: 'Hi', mms: false, numbers: '+33612345678' }));
      const on = await makeUser(ds, { settings: { mms: '2' } });
      expectCreated(await post(on.apiKey, { text: 'Hi', mms: true, numbers: '+33612345678' }));
    });

    it('checks the mms setting before the CSV', async () => {
      const { apiKey } = await makeUser(ds, { settings: { mms: '0' } });
      expectError(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Hi' },
          { name: 'mms', value: '1' },
          { name: 'numbers_csv', value: '', filename: 'numbers.csv' },
        ]),
        400,
        INVALID_PARAMETER,
        `${INVALID}mms is set to true`,
      );
    });
  });

  describe('rule 6: numbers_csv', () => {
    const postCsv = (apiKey: string, csv: string | Buffer, extra: FormPart[] = []) =>
      postMultipart(apiKey, [
        { name: 'text', value: 'Hi' },
        ...extra,
        { name: 'numbers_csv', value: csv, filename: 'numbers.csv' },
      ]);

    it('appends the numbers of the CSV, data JSON-encoded, after the numbers parameter', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await postCsv(apiKey, 'tel,first name\n+33612345671,Ann\n+33612345672,\n', [
          { name: 'numbers[0][number]', value: '+33612345670' },
          { name: 'numbers[0][data]', value: '{"firstname":"Zoe"}' },
        ]),
      );
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345670', data: '{"firstname":"Zoe"}' },
        { number: '+33612345671', data: '{"firstname":"Ann"}' },
        { number: '+33612345672', data: '[]' },
      ]);
    });

    it("reads national numbers of the user's default_phone_country", async () => {
      const { apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const id = expectCreated(await postCsv(apiKey, 'n\n06 12 34 56 78\n'));
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
      ]);
    });

    it('refuses an invalid number with INVALID_PARAMETER naming its line and creates nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      expectError(
        await postCsv(apiKey, DOC_CSV + '0612345678,Doe,Jim\n'),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : line 4, column 1: "0612345678" is not a valid phone number.`,
      );
      expect((await countScheduledRows(ds, user.id)).scheduled_number).toBe(0);
    });

    it('refuses an empty file, or a header alone, with INVALID_PARAMETER: no valid number', async () => {
      const { apiKey } = await makeUser(ds);
      for (const csv of ['', '0,lastname,firstname\n']) {
        expectError(
          await postCsv(apiKey, csv, [{ name: 'numbers[]', value: '+33612345678' }]),
          400,
          INVALID_PARAMETER,
          `${INVALID}csv : no valid number in the file.`,
        );
      }
    });

    it('refuses a line longer than the header with INVALID_PARAMETER naming the line', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await postCsv(apiKey, 'n,a\n+33612345678,x,y\n'),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : line 2 has 3 values, more than the 2 columns of the header line.`,
      );
    });

    it('refuses a line over 64 KiB with INVALID_PARAMETER naming the line', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await postCsv(apiKey, `n,a\n+33612345678,x\n+33612345679,${'x'.repeat(70_000)}\n`),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : line 3 is longer than 65536 bytes.`,
      );
    });

    it('refuses more rows than MAX_CSV_ROWS with 413 CANNOT_UPLOAD_FILE', async () => {
      const { user, apiKey } = await makeUser(ds);
      const rows = Array.from({ length: 1001 }, (_, i) => `+3361${String(i).padStart(7, '0')}`);
      expectError(
        await postCsv(apiKey, `n\n${rows.join('\n')}\n`),
        413,
        CANNOT_UPLOAD_FILE,
        'Failed to upload or save an uploaded file : numbers_csv : the file has more than 1000 rows',
      );
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('stores 1000 rows with a few multi-row inserts, not one query per number', async () => {
      const { user, apiKey } = await makeUser(ds);
      const rows = Array.from(
        { length: 1000 },
        (_, i) => `+3361${String(i).padStart(7, '0')},${i}`,
      );
      const { result, queries } = await withQueries(ds, () =>
        postCsv(apiKey, `n,rank\n${rows.join('\n')}\n`),
      );
      const id = expectCreated(result);
      const stored = await storedScheduled(ds, id);
      expect(stored.numbers).toHaveLength(1000);
      expect(stored.numbers[999]).toEqual({ number: '+33610000999', data: '{"rank":"999"}' });
      const numberInserts = queries.filter((sql) => /INSERT INTO [`"]?scheduled_number/i.test(sql));
      expect(numberInserts).toHaveLength(1);
      expect((await countScheduledRows(ds, user.id)).scheduled_number).toBe(1000);
    });

    it('refuses a file that is not a CSV at all with INVALID_PARAMETER, never a 500', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await postCsv(apiKey, PNG),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : line 2, column 1:`,
      );
    });

    it('refuses numbers_csv sent as a text field, or twice, with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&numbers_csv=%2B33612345678'),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : numbers_csv must be a file`,
      );
      expectError(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Hi' },
          { name: 'numbers_csv[]', value: 'n\n+33612345678\n', filename: 'a.csv' },
          { name: 'numbers_csv[]', value: 'n\n+33612345679\n', filename: 'b.csv' },
        ]),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : send one numbers_csv file`,
      );
    });

    it('reads the CSV before the numbers: a CSV error wins over bad number data', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await postCsv(apiKey, 'n\nbad\n', [
          { name: 'numbers[0][number]', value: '+33612345678' },
          { name: 'numbers[0][data]', value: '{not json' },
        ]),
        400,
        INVALID_PARAMETER,
        `${INVALID}csv : line 2, column 1`,
      );
    });
  });

  describe('rule 7: numbers', () => {
    it('drops invalid numbers silently and keeps the valid ones, normalised, in order', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await post(apiKey, {
          text: 'Hi',
          numbers: ['0612345678', '+33 6 12 34 56 79', 'abc', '', { number: '+1' }, '+33612345680'],
        }),
      );
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345679', data: '[]' },
        { number: '+33612345680', data: '[]' },
      ]);
    });

    it('reads a number whose + came unencoded (a space in a form) as the + typed, where RaspiSMS drops it', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await post(apiKey, 'text=Hi&numbers[]=+33612345678&numbers[]=%2B33612345679'),
      );
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
        { number: '+33612345679', data: '[]' },
      ]);
    });

    it("normalises national numbers with the user's default_phone_country", async () => {
      const { apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const id = expectCreated(await post(apiKey, 'text=Hi&numbers=06.12.34.56.78'));
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
      ]);
    });

    it('takes a single number, a list, a bracket map and {number, data} objects', async () => {
      const { apiKey } = await makeUser(ds);
      const cases: Array<[Record<string, unknown> | string, string[]]> = [
        ['text=Hi&numbers=%2B33612345678', ['+33612345678']],
        [
          'text=Hi&numbers[5]=%2B33612345679&numbers[2]=%2B33612345678',
          ['+33612345678', '+33612345679'],
        ],
        [{ text: 'Hi', numbers: '+33612345678' }, ['+33612345678']],
        [
          { text: 'Hi', numbers: [{ number: '+33612345678' }, '+33612345679'] },
          ['+33612345678', '+33612345679'],
        ],
      ];
      for (const [body, expected] of cases) {
        const id = expectCreated(await post(apiKey, body));
        expect((await storedScheduled(ds, id)).numbers.map((n) => n.number)).toEqual(expected);
      }
    });

    it('stores data as given when it is JSON, `[]` when absent or empty, and JSON-encodes a structure', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await post(apiKey, {
          text: 'Hi',
          numbers: [
            { number: '+33612345671', data: '{"a": 1}' },
            { number: '+33612345672' },
            { number: '+33612345673', data: '' },
            { number: '+33612345674', data: { firstname: 'Jo', tags: ['x'] } },
            { number: '+33612345675', data: '"just a string"' },
          ],
        }),
      );
      expect((await storedScheduled(ds, id)).numbers.map((n) => n.data)).toEqual([
        '{"a": 1}',
        '[]',
        '[]',
        '{"firstname":"Jo","tags":["x"]}',
        '"just a string"',
      ]);
      const form = expectCreated(
        await post(
          apiKey,
          'text=Hi&numbers[0][number]=%2B33612345678&numbers[0][data][firstname]=John',
        ),
      );
      expect((await storedScheduled(ds, form)).numbers).toEqual([
        { number: '+33612345678', data: '{"firstname":"John"}' },
      ]);
    });

    it('refuses data that is not JSON, or is the JSON null, with INVALID_PARAMETER naming it', async () => {
      const { user, apiKey } = await makeUser(ds);
      // The other data refused: scheduled.params.spec.ts.
      expectError(
        await post(apiKey, {
          text: 'Hi',
          numbers: ['+33612345670', { number: '+33612345678', data: '{firstname: John}' }],
        }),
        400,
        INVALID_PARAMETER,
        `${INVALID}numbers[1][data] must be valid JSON other than null, or left out`,
      );
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('refuses data longer than a data column holds with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, {
          text: 'Hi',
          numbers: [{ number: '+33612345678', data: JSON.stringify('x'.repeat(70_000)) }],
        }),
        400,
        INVALID_PARAMETER,
        `${INVALID}numbers[0][data] must be at most 65535 bytes long.`,
      );
    });

    it('does not check the data of a number it drops', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(
        await post(apiKey, {
          text: 'Hi',
          numbers: [{ number: 'invalid', data: 'not json' }, '+33612345678'],
        }),
      );
      expect((await storedScheduled(ds, id)).numbers).toHaveLength(1);
    });
  });

  describe("contacts, groups, conditional_groups: the caller's own (checked after rule 7)", () => {
    it('links the given contacts, groups and conditional groups, single values and lists, once each', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contacts = [await makeContact(ds, user.id), await makeContact(ds, user.id)];
      const group = await makeGroup(ds, user.id, [contacts[0].id]);
      const conditional = await makeConditionalGroup(ds, user.id);

      const id = expectCreated(
        await post(
          apiKey,
          `text=Hi&contacts[]=${contacts[1].id}&contacts[]=${contacts[0].id}&contacts[]=${contacts[1].id}` +
            `&groups=${group.id}&conditional_groups[0]=${conditional.id}`,
        ),
      );

      const stored = await storedScheduled(ds, id);
      expect(stored.numbers).toEqual([]);
      expect(stored.contactIds.sort()).toEqual([contacts[0].id, contacts[1].id].sort());
      expect(stored.groupIds).toEqual([group.id]);
      expect(stored.conditionalGroupIds).toEqual([conditional.id]);
    });

    it("refuses another user's or a nonexistent id alike, with INVALID_PARAMETER naming the parameter", async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const own = {
        contacts: (await makeContact(ds, user.id)).id,
        groups: (await makeGroup(ds, user.id)).id,
        conditional_groups: (await makeConditionalGroup(ds, user.id)).id,
      };
      const foreign = {
        contacts: (await makeContact(ds, other.user.id)).id,
        groups: (await makeGroup(ds, other.user.id)).id,
        conditional_groups: (await makeConditionalGroup(ds, other.user.id)).id,
      };
      const nouns = {
        contacts: 'contacts',
        groups: 'groups',
        conditional_groups: 'conditional groups',
      };
      for (const kind of ['contacts', 'groups', 'conditional_groups'] as const) {
        for (const id of [foreign[kind], 999_999]) {
          const response = await post(apiKey, {
            text: 'Hi',
            numbers: '+33612345678',
            [kind]: [own[kind], id],
          });
          expectError(
            response,
            400,
            INVALID_PARAMETER,
            `${INVALID}${kind} : ${id} is not the id of one of your ${nouns[kind]}.`,
          );
        }
      }
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('refuses a list of foreign ids rather than reporting nothing to send (before rule 8)', async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const contact = await makeContact(ds, other.user.id);
      expectError(
        await post(apiKey, `text=Hi&contacts=${contact.id}`),
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts : ${contact.id} is not the id of one of your contacts.`,
      );
    });

    it('checks number data (rule 7) before the ids', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, {
          text: 'Hi',
          numbers: [{ number: '+33612345678', data: 'bad' }],
          contacts: 999_999,
        }),
        400,
        INVALID_PARAMETER,
        `${INVALID}numbers[0][data]`,
      );
    });

    it('refuses an id that is not a non-negative integer with INVALID_PARAMETER naming it', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&numbers=%2B33612345678&groups[]=1&groups[]=abc'),
        400,
        INVALID_PARAMETER,
        `${INVALID}groups[1] must be a non-negative integer`,
      );
    });
  });

  describe('rule 8: at least one recipient', () => {
    it('refuses a message without numbers, contacts, groups or conditional groups with MISSING_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      for (const body of [
        'text=Hi',
        'text=Hi&numbers=abc&numbers[]=0612345678',
        'text=Hi&numbers=&contacts=&groups=&conditional_groups=',
        { text: 'Hi', numbers: [], contacts: [] },
      ]) {
        expectError(
          await post(apiKey, body),
          400,
          MISSING_PARAMETER,
          `${MISSING}numbers, contacts, groups, conditional_groups : You must specify at least one valid number, contact, group or conditional_group.`,
        );
      }
    });
  });

  describe('rule 9: id_phone or id_phone_group, not both', () => {
    it('takes an empty id_phone or id_phone_group as absent', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = expectCreated(
        await post(apiKey, `text=Hi&numbers=%2B33612345678&id_phone=${phone.id}&id_phone_group=`),
      );
      expect((await storedScheduled(ds, id)).scheduled).toMatchObject({
        id_phone: phone.id,
        id_phone_group: null,
      });
    });

    it('refuses an id_phone that is not a non-negative integer with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&numbers=%2B33612345678&id_phone=1x'),
        400,
        INVALID_PARAMETER,
        `${INVALID}id_phone must be a non-negative integer`,
      );
    });
  });

  describe("rule 10: the caller's phone or phone group", () => {
    it('stores an own phone or an own phone group', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const group = await makePhoneGroup(ds, user.id, [phone.id]);
      const withPhone = expectCreated(
        await post(apiKey, { text: 'Hi', numbers: '+33612345678', id_phone: String(phone.id) }),
      );
      expect((await storedScheduled(ds, withPhone)).scheduled).toMatchObject({
        id_phone: phone.id,
        id_phone_group: null,
      });
      const withGroup = expectCreated(
        await post(apiKey, { text: 'Hi', numbers: '+33612345678', id_phone_group: group.id }),
      );
      expect((await storedScheduled(ds, withGroup)).scheduled).toMatchObject({
        id_phone: null,
        id_phone_group: group.id,
      });
    });

    it("refuses another user's or a nonexistent phone alike, with INVALID_PARAMETER naming id_phone", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const phone = await makePhone(ds, other.user.id);
      for (const id of [phone.id, 999_999]) {
        expectError(
          await post(apiKey, { text: 'Hi', numbers: '+33612345678', id_phone: id }),
          400,
          INVALID_PARAMETER,
          `${INVALID}id_phone : ${id} is not the id of one of your phones.`,
        );
      }
    });

    it("refuses another user's or a nonexistent phone group alike, naming id_phone_group", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const group = await makePhoneGroup(ds, other.user.id);
      for (const id of [group.id, 999_999]) {
        expectError(
          await post(apiKey, { text: 'Hi', numbers: '+33612345678', id_phone_group: id }),
          400,
          INVALID_PARAMETER,
          `${INVALID}id_phone_group : ${id} is not the id of one of your phone groups.`,
        );
      }
    });
  });

  describe('rule 12: medias of an MMS', () => {
    it('stores each file of medias[], medias and medias[i] as a media of the caller, linked to the message', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = expectCreated(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Look' },
          { name: 'mms', value: 'true' },
          { name: 'numbers', value: '+33612345678' },
          { name: 'medias[]', value: PNG, filename: 'image.png' },
          { name: 'medias', value: 'hello', filename: 'notes.txt' },
          { name: 'medias[3]', value: 'GIF89a', filename: 'anim.GIF' },
        ]),
      );

      const stored = await storedScheduled(ds, id);
      expect(stored.medias.map((media) => media.id_user)).toEqual([user.id, user.id, user.id]);
      const paths = stored.medias.map((media) => media.path);
      expect(paths[0]).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.png$`));
      expect(paths[1]).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.txt$`));
      expect(paths[2]).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.gif$`));
      const contents = paths.map((path) => readFileSync(join(t.config.dataDir, 'media', path)));
      expect(contents).toEqual([PNG, Buffer.from('hello'), Buffer.from('GIF89a')]);
      expect(filesUnder(mediaFolder(user.id))).toEqual(
        paths.map((path) => path.slice(`${user.id}/`.length)).sort(),
      );
    });

    it("never uses the client's file name as a path", async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = expectCreated(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Look' },
          { name: 'mms', value: '1' },
          { name: 'numbers', value: '+33612345678' },
          { name: 'medias[]', value: PNG, filename: '../../../evil.sh' },
          { name: 'medias[]', value: PNG, filename: 'no extension' },
        ]),
      );
      const paths = (await storedScheduled(ds, id)).medias.map((media) => media.path);
      expect(paths[0]).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.sh$`));
      // curl sends a file without a known extension as octet-stream: no extension to give it.
      expect(paths[1]).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}$`));
      expect(filesUnder(t.config.dataDir).filter((name) => name.includes('evil'))).toEqual([]);
    });

    it('ignores medias when mms is false: no media row, no file', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = expectCreated(
        await postMultipart(apiKey, [
          { name: 'text', value: 'No MMS' },
          { name: 'numbers', value: '+33612345678' },
          { name: 'medias[]', value: PNG, filename: 'image.png' },
        ]),
      );
      expect((await storedScheduled(ds, id)).medias).toEqual([]);
      expect((await countScheduledRows(ds, user.id)).media).toBe(0);
      expect(filesUnder(mediaFolder(user.id))).toEqual([]);
    });

    it('refuses medias sent as text instead of files with INVALID_PARAMETER when mms is true', async () => {
      const { apiKey } = await makeUser(ds);
      expectError(
        await post(apiKey, 'text=Hi&mms=1&numbers=%2B33612345678&medias[]=image.png'),
        400,
        INVALID_PARAMETER,
        `${INVALID}medias must be files`,
      );
    });

    it('answers CANNOT_CREATE naming the file when it cannot be stored, and creates nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      // A file where the user's media folder should be: the upload cannot be moved there.
      mkdirSync(join(t.config.dataDir, 'media'), { recursive: true });
      writeFileSync(mediaFolder(user.id), 'in the way');
      try {
        expectError(
          await postMultipart(apiKey, [
            { name: 'text', value: 'Look' },
            { name: 'mms', value: '1' },
            { name: 'numbers', value: '+33612345678' },
            { name: 'medias[]', value: PNG, filename: 'holiday.png' },
          ]),
          422,
          CANNOT_CREATE,
          'Cannot create a new entry. medias : cannot store the file "holiday.png".',
        );
        expect(await countScheduledRows(ds, user.id)).toMatchObject({
          scheduled: 0,
          scheduled_number: 0,
          media: 0,
        });
      } finally {
        rmSync(mediaFolder(user.id));
      }
    });

    it('leaves no media file behind when a later rule refuses the request', async () => {
      const { user, apiKey } = await makeUser(ds);
      expectError(
        await postMultipart(apiKey, [
          { name: 'text', value: 'Look' },
          { name: 'mms', value: '1' },
          { name: 'numbers', value: '+33612345678' },
          { name: 'id_phone', value: '999999' },
          { name: 'medias[]', value: PNG, filename: 'image.png' },
        ]),
        400,
        INVALID_PARAMETER,
        `${INVALID}id_phone`,
      );
      expect(filesUnder(mediaFolder(user.id))).toEqual([]);
      expect((await countScheduledRows(ds, user.id)).media).toBe(0);
    });
  });

  describe('rule 14: no phone, no phone group', () => {
    it('stores neither, so that the dispatch chooses the phone', async () => {
      const { apiKey } = await makeUser(ds);
      const id = expectCreated(await post(apiKey, { text: 'Hi', numbers: '+33612345678' }));
      expect((await storedScheduled(ds, id)).scheduled).toMatchObject({
        id_phone: null,
        id_phone_group: null,
      });
    });
  });
});

describeEachDatabase('post_scheduled, rule 13: a failing creation', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
    // Only this database loses the table: the last insert of a creation then fails for real.
    await ds.query('DROP TABLE media_scheduled');
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers CANNOT_CREATE and leaves no row, no number, no link, no media and no file', async () => {
    const { user, apiKey } = await makeUser(ds);
    const contact = await makeContact(ds, user.id);
    const group = await makeGroup(ds, user.id, [contact.id]);
    const conditional = await makeConditionalGroup(ds, user.id);
    const { body, contentType } = curlMultipart([
      { name: 'text', value: 'Hello' },
      { name: 'mms', value: '1' },
      { name: 'numbers[]', value: '+33612345670' },
      { name: 'contacts[]', value: String(contact.id) },
      { name: 'groups[]', value: String(group.id) },
      { name: 'conditional_groups[]', value: String(conditional.id) },
      { name: 'medias[]', value: PNG, filename: 'image.png' },
      { name: 'medias[]', value: PNG, filename: 'image2.png' },
      { name: 'numbers_csv', value: DOC_CSV, filename: 'numbers.csv' },
    ]);

    const response = await api(t, apiKey)
      .post('/api/scheduled/')
      .set('Content-Type', contentType)
      .send(body);

    expect({ status: response.status, body: response.body as unknown }).toEqual({
      status: 422,
      body: {
        error: CANNOT_CREATE,
        message: 'Cannot create a new entry.',
        response: null,
        next: null,
        prev: null,
      },
    });
    expect(await countScheduledRows(ds, user.id)).toEqual({
      scheduled: 0,
      scheduled_number: 0,
      scheduled_contact: 0,
      scheduled_group: 0,
      scheduled_conditional_group: 0,
      media: 0,
    });
    expect(filesUnder(join(t.config.dataDir, 'media'))).toEqual([]);
  });

  it('still creates a message without medias, which needs no media link', async () => {
    const { apiKey } = await makeUser(ds);
    const response = await api(t, apiKey).json('/api/scheduled/', {
      text: 'Hi',
      numbers: '+33612345678',
    });
    expectCreated(response);
  });
});

describeEachDatabase('delete_scheduled', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const remove = (apiKey: string | null, path: string) => {
    const call = request(t.url).delete(path);
    return apiKey === null ? call : call.set('X-Api-Key', apiKey);
  };

  it('refuses a request without an API key with 401 and deletes nothing', async () => {
    const { user } = await makeUser(ds);
    const scheduled = await makeScheduled(ds, user.id);
    expectError(await remove(null, `/api/scheduled/${scheduled.id}/`), 401, 1, 'Invalid API Key.');
    expect((await storedScheduled(ds, scheduled.id)).scheduled).not.toBeNull();
  });

  it('deletes the message with its numbers and links, answers 200 true, and keeps a media another message links', async () => {
    const { user, apiKey } = await makeUser(ds);
    const contact = await makeContact(ds, user.id);
    const group = await makeGroup(ds, user.id, [contact.id]);
    const conditional = await makeConditionalGroup(ds, user.id);
    const media = await makeMedia(ds, user.id);
    const scheduled = await makeScheduled(ds, user.id, {
      numbers: [{ number: '+33612345678' }, { number: '+33612345679', data: '{"a":"b"}' }],
      contactIds: [contact.id],
      groupIds: [group.id],
      conditionalGroupIds: [conditional.id],
      mediaIds: [media.id],
    });
    const kept = await makeScheduled(ds, user.id, {
      numbers: [{ number: '+33612345670' }],
      mediaIds: [media.id],
    });

    const response = await remove(apiKey, `/api/scheduled/${scheduled.id}/`);

    expect({ status: response.status, body: response.body as unknown }).toEqual({
      status: 200,
      body: { error: 0, message: null, response: true, next: null, prev: null },
    });
    expect(await storedScheduled(ds, scheduled.id)).toEqual({
      scheduled: null,
      numbers: [],
      contactIds: [],
      groupIds: [],
      conditionalGroupIds: [],
      medias: [],
    });
    expect(
      await countRows(ds, 'SELECT COUNT(*) AS n FROM media_scheduled WHERE id_scheduled = ?', [
        scheduled.id,
      ]),
    ).toBe(0);
    expect(await ds.getRepository(Media).countBy({ id: media.id })).toBe(1);
    expect(await ds.getRepository(Contact).countBy({ id: contact.id })).toBe(1);
    const other = await storedScheduled(ds, kept.id);
    expect(other.numbers).toHaveLength(1);
    expect(other.medias.map((m) => m.id)).toEqual([media.id]);
  });

  it('accepts the path without its trailing slash', async () => {
    const { user, apiKey } = await makeUser(ds);
    const scheduled = await makeScheduled(ds, user.id);
    const response = await remove(apiKey, `/api/scheduled/${scheduled.id}`);
    expect(response.status).toBe(200);
    expect(response.body.response).toBe(true);
  });

  it("refuses another user's or a nonexistent message alike, with 404 CANNOT_DELETE", async () => {
    const { apiKey } = await makeUser(ds);
    const other = await makeUser(ds);
    const foreign = await makeScheduled(ds, other.user.id, {
      numbers: [{ number: '+33612345678' }],
    });

    for (const id of [foreign.id, 999_999]) {
      const response = await remove(apiKey, `/api/scheduled/${id}/`);
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 404,
        body: {
          error: CANNOT_DELETE,
          message: `Cannot delete this entry. id : ${id} is not the id of one of your scheduled messages.`,
          response: null,
          next: null,
          prev: null,
        },
      });
    }
    expect((await storedScheduled(ds, foreign.id)).numbers).toHaveLength(1);
  });

  it('refuses a second delete of the same message with 404 CANNOT_DELETE', async () => {
    const { user, apiKey } = await makeUser(ds);
    const scheduled = await makeScheduled(ds, user.id);
    expect((await remove(apiKey, `/api/scheduled/${scheduled.id}/`)).status).toBe(200);
    expectError(
      await remove(apiKey, `/api/scheduled/${scheduled.id}/`),
      404,
      CANNOT_DELETE,
      'Cannot delete this entry.',
    );
  });

  it('refuses an id that is not a non-negative integer with INVALID_PARAMETER naming id', async () => {
    const { apiKey } = await makeUser(ds);
    for (const id of ['abc', '-1', '1.5']) {
      expectError(
        await remove(apiKey, `/api/scheduled/${id}/`),
        400,
        INVALID_PARAMETER,
        `${INVALID}id must be a non-negative integer`,
      );
    }
  });
});

describeEachDatabase('post_scheduled: a CSV of the default maximum of 200,000 rows', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores every number of a 200,000-row CSV, within the default limits', async () => {
    const { user, apiKey } = await makeUser(ds);
    const rows = Array.from(
      { length: 200_000 },
      (_, i) => `+336${String(i).padStart(8, '0')},Name ${i}`,
    );
    const { body, contentType } = curlMultipart([
      { name: 'text', value: 'Hello {{ contact.name }}' },
      { name: 'numbers_csv', value: `number,name\n${rows.join('\n')}\n`, filename: 'big.csv' },
    ]);
    const response = await api(t, apiKey)
      .post('/api/scheduled/')
      .set('Content-Type', contentType)
      .send(body);
    expectCreated(response);
    expect((await countScheduledRows(ds, user.id)).scheduled_number).toBe(200_000);
  }, 120_000);
});

describeEachDatabase(
  'post_scheduled: a message of more numbers than one transaction writes',
  (database) => {
    let t: TestApp;
    let ds: DataSource;

    beforeAll(async () => {
      t = await startApp(database());
      ds = t.dataSource;
    });
    afterAll(async () => {
      await t.close();
    });

    /** A CSV of `count` numbers, +33600000000 upwards, with a name each. */
    const csvOf = (count: number) =>
      'number,name\n' +
      Array.from({ length: count }, (_, i) => `+336${String(i).padStart(8, '0')},Name ${i}`).join(
        '\n',
      ) +
      '\n';
    const postCsv = (apiKey: string, csv: string) => {
      const { body, contentType } = curlMultipart([
        { name: 'text', value: 'Hello {{ contact.name }}' },
        { name: 'at', value: '2030-01-01 10:00:00' },
        { name: 'numbers_csv', value: csv, filename: 'numbers.csv' },
      ]);
      return api(t, apiKey).post('/api/scheduled/').set('Content-Type', contentType).send(body);
    };

    it('stores every number, the message visible and due at its at once answered', async () => {
      const { user, apiKey } = await makeUser(ds);
      const count = 2 * NUMBERS_PER_TRANSACTION + 1;

      const id = expectCreated(await postCsv(apiKey, csvOf(count)));

      const [row] = await ds.query<
        Array<{ hidden: number | string; send_after: string; updated_at: string | null }>
      >('SELECT hidden, send_after, updated_at FROM scheduled WHERE id = ?', [id]);
      expect({
        hidden: Number(row.hidden),
        send_after: String(row.send_after).slice(0, 19),
        updated_at: row.updated_at,
      }).toEqual({ hidden: 0, send_after: '2030-01-01 10:00:00', updated_at: null });
      expect((await countScheduledRows(ds, user.id)).scheduled_number).toBe(count);
      expect((await api(t, apiKey).get(`/api/scheduled/${id}/`)).status).toBe(200);
    }, 60_000);

    it('answers a large message sent again with its idempotency key as the first time, and keeps one', async () => {
      const { user, apiKey } = await makeUser(ds);
      const csv = csvOf(NUMBERS_PER_TRANSACTION + 1);

      const first = await postCsv(apiKey, csv).set('Idempotency-Key', 'large-1');
      const again = await postCsv(apiKey, csv).set('Idempotency-Key', 'large-1');

      const id = expectCreated(first);
      expect(expectCreated(again)).toBe(id);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await countScheduledRows(ds, user.id)).toMatchObject({
        scheduled: 1,
        scheduled_number: NUMBERS_PER_TRANSACTION + 1,
      });
    }, 60_000);

    it('refuses a file the database refuses part-way with CANNOT_CREATE, and keeps nothing of it', async () => {
      const { user, apiKey } = await makeUser(ds);
      // The second part's first thousand rows go in, then the database refuses one number.
      const refused = `+336${String(NUMBERS_PER_TRANSACTION + 2000).padStart(8, '0')}`;
      await ds.query(
        database().kind === 'mariadb'
          ? 'CREATE TRIGGER refuse_number BEFORE INSERT ON scheduled_number FOR EACH ROW ' +
              `BEGIN IF NEW.number = '${refused}' THEN ` +
              "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END"
          : 'CREATE TRIGGER refuse_number BEFORE INSERT ON scheduled_number ' +
              `WHEN NEW.number = '${refused}' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
      try {
        const response = await postCsv(apiKey, csvOf(2 * NUMBERS_PER_TRANSACTION + 1));

        expect(response.status).toBe(422);
        expect((response.body as { error: number }).error).toBe(CANNOT_CREATE);
      } finally {
        await ds.query('DROP TRIGGER refuse_number');
      }
      expect(await countScheduledRows(ds, user.id)).toMatchObject({
        scheduled: 0,
        scheduled_number: 0,
      });
    }, 60_000);

    it('leaves a message still hidden out of get_entries, get_scheduled, delete_scheduled and get_queue_stats', async () => {
      const { user, apiKey } = await makeUser(ds);
      const hidden = await makeScheduled(ds, user.id, {
        at: '2020-01-01 00:00:00',
        send_after: HIDDEN_SEND_AFTER,
        hidden: 1,
        numbers: [{ number: '+33612345678' }],
      });

      expect(await api(t, apiKey).list('scheduled')).toEqual([]);
      expect((await api(t, apiKey).get(`/api/scheduled/${hidden.id}/`)).status).toBe(404);
      expect((await api(t, apiKey).delete(`/api/scheduled/${hidden.id}/`)).status).toBe(404);
      expect((await api(t, apiKey).get('/api/stats/queue/')).body).toMatchObject({
        response: { due: 0, to_come: 0, sending: 0 },
      });
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(1);
    });
  },
);
