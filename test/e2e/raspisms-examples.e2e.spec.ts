import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import { DataSource } from 'typeorm';
import { Media, MediaScheduled } from '../../src/media/entities/media.entity';
import { PhoneLimit } from '../../src/phones/entities/phone-limit.entity';
import { Phone } from '../../src/phones/entities/phone.entity';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from '../../src/scheduled/entities/scheduled.entity';
import { startApp, TestApp } from '../support/app';
import { FakeServer } from '../support/adapters.factories';
import { FakeOctopush, startFakeOctopush } from '../support/fake-octopush';
import { curlMultipart, FormPart } from '../support/curl';
import { describeEachDatabase } from '../support/databases';
import { freezeDate } from '../support/instruments';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makePhone,
  makePhoneGroup,
  makePhoneLimit,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';

/*
 * Every curl example of RaspiSMS's API documentation, sent to smsgw byte for byte as curl sends
 * it, then checked in the envelope and in the database.
 *
 * The examples are those of RaspbianFrance/raspisms-documentation at fac2cd9 (2024-12-20): the
 * page build/html/developpers/api/overview.html and the files it includes,
 * source/_code_examples/api/*.curl. The documentation has no curl example for a listing page or
 * cursor, get_invalid_numbers, post_update_phone, post_change_phone_status, or post_scheduled with
 * groups, conditional groups, flash, tag or a phone group: those requests are written here in the
 * documentation's style from the forms RaspiSMS's code reads, and say so.
 *
 * Each test gives the command's arguments as the shell hands them to curl. Only the examples'
 * host, API key and ids are replaced: by the test app's, a user made with makeUser and rows the
 * test makes. `curl()` below writes the request exactly as curl 7.88.1 does (checked against
 * requests curl 7.88.1 sent to a socket): the request line with the URL's path and query as
 * typed, `Host`, `User-Agent`, `Accept`, the `-H` headers, then for a body `Content-Length` and
 * `Content-Type`. The request goes over a plain socket, so nothing re-encodes it on the way.
 */

const FIXTURES = join(__dirname, '..', 'fixtures', 'raspisms');
/** The documentation's examples send to the SaaS; smsgw runs on the test app's port instead. */
const DOC_ORIGIN = /^https?:\/\/[^/]+/;

const CANNOT_CREATE = 8;
const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];

interface Envelope {
  error: number;
  message: string | null;
  response: unknown;
  next: string | null;
  prev: string | null;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Envelope;
}

/**
 * `--data-urlencode 'name=value'`: curl leaves the name alone and escapes the value, keeping
 * only letters, digits and `-._~`, and writing a space as `+`.
 */
function curlDataUrlencode(argument: string): string {
  const equals = argument.indexOf('=');
  const name = argument.slice(0, equals + 1);
  const value = Buffer.from(argument.slice(equals + 1), 'utf8');
  let escaped = '';
  for (const byte of value) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char)) {
      escaped += char;
    } else if (char === ' ') {
      escaped += '+';
    } else {
      escaped += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return name + escaped;
}

/** A `-F` argument: `name=@file` is a file part (from the fixtures folder), else a text part. */
function formPart(argument: string): FormPart {
  const equals = argument.indexOf('=');
  const name = argument.slice(0, equals);
  const value = argument.slice(equals + 1);
  if (value.startsWith('@')) {
    const filename = value.slice(1);
    return { name, value: readFileSync(join(FIXTURES, filename)), filename: basename(filename) };
  }
  return { name, value };
}

/**
 * The bytes curl sends for `args` (the command line after the shell removed its quoting), with
 * the URL's origin replaced by the test app's. Understands what the examples use: the URL,
 * `-X`, `-H`, `-d`, `--data-urlencode` and `-F` (without `;type=` or `<file`).
 */
function curlRequest(app: TestApp, args: readonly string[]): Buffer {
  let method: string | undefined;
  let target: string | undefined;
  const headers: string[] = [];
  const data: string[] = [];
  const parts: FormPart[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = () => {
      i += 1;
      return args[i];
    };
    if (arg === '-X') {
      method = value();
    } else if (arg === '-H') {
      headers.push(value());
    } else if (arg === '-d' || arg === '--data') {
      data.push(value());
    } else if (arg === '--data-urlencode') {
      data.push(curlDataUrlencode(value()));
    } else if (arg === '-F') {
      parts.push(formPart(value()));
    } else if (DOC_ORIGIN.test(arg)) {
      target = arg.replace(DOC_ORIGIN, '') || '/';
    } else {
      throw new Error(`curl argument not understood: ${arg}`);
    }
  }
  if (target === undefined) {
    throw new Error('curl needs a URL');
  }
  let body: { type: string; bytes: Buffer } | undefined;
  if (parts.length > 0) {
    const multipart = curlMultipart(parts);
    body = { type: multipart.contentType, bytes: multipart.body };
  } else if (data.length > 0) {
    body = {
      type: 'application/x-www-form-urlencoded',
      bytes: Buffer.from(data.join('&'), 'utf8'),
    };
  }
  const lines = [
    `${method ?? (body ? 'POST' : 'GET')} ${target} HTTP/1.1`,
    `Host: ${new URL(app.url).host}`,
    'User-Agent: curl/7.88.1',
    'Accept: */*',
    ...headers,
  ];
  if (body) {
    lines.push(`Content-Length: ${body.bytes.length}`, `Content-Type: ${body.type}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
  return body ? Buffer.concat([head, body.bytes]) : head;
}

/** Reads one HTTP/1.1 response (Content-Length or chunked) off a kept-alive connection. */
function readResponse(
  received: Buffer,
): { status: number; headers: Record<string, string>; body: Buffer } | null {
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) {
    return null;
  }
  const [statusLine, ...headerLines] = received.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = received.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const chunks: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', offset);
      if (lineEnd < 0) {
        return null;
      }
      const size = parseInt(rest.subarray(offset, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        return { status, headers, body: Buffer.concat(chunks) };
      }
      if (rest.length < lineEnd + 2 + size + 2) {
        return null;
      }
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  return rest.length < length ? null : { status, headers, body: rest.subarray(0, length) };
}

/** Runs the curl command `args` against the test app and returns its parsed response. */
function curl(app: TestApp, ...args: string[]): Promise<RawResponse> {
  const request = curlRequest(app, args);
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the connection closed before a full response')));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = readResponse(received);
      if (response) {
        socket.removeAllListeners('close');
        socket.destroy();
        try {
          resolve({
            status: response.status,
            headers: response.headers,
            body: JSON.parse(response.body.toString('utf8')) as Envelope,
          });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
    socket.write(request);
  });
}

/** A success: the status, the envelope in its key order, and the `response`. */
function expectSuccess(result: RawResponse, status: number): unknown {
  expect(result.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(result.body)).toEqual(ENVELOPE_KEYS);
  expect({ status: result.status, error: result.body.error, message: result.body.message }).toEqual(
    { status, error: 0, message: null },
  );
  return result.body.response;
}

function expectFailure(result: RawResponse, status: number, error: number): string {
  expect(Object.keys(result.body)).toEqual(ENVELOPE_KEYS);
  expect({
    status: result.status,
    error: result.body.error,
    response: result.body.response,
  }).toEqual({ status, error, response: null });
  return result.body.message ?? '';
}

/** A scheduled message as stored, with everything that hangs off it, in id order. */
async function storedScheduled(ds: DataSource, id: number) {
  const where = { where: { id_scheduled: id }, order: { id: 'ASC' as const } };
  const mediaLinks = await ds.getRepository(MediaScheduled).find(where);
  const medias: Media[] = [];
  for (const link of mediaLinks) {
    medias.push(await ds.getRepository(Media).findOneByOrFail({ id: link.id_media }));
  }
  return {
    scheduled: await ds.getRepository(Scheduled).findOneBy({ id }),
    numbers: (await ds.getRepository(ScheduledNumber).find(where)).map(({ number, data }) => ({
      number,
      data,
    })),
    contactIds: (await ds.getRepository(ScheduledContact).find(where)).map((r) => r.id_contact),
    groupIds: (await ds.getRepository(ScheduledGroup).find(where)).map((r) => r.id_group),
    conditionalGroupIds: (await ds.getRepository(ScheduledConditionalGroup).find(where)).map(
      (r) => r.id_conditional_group,
    ),
    medias,
  };
}

async function storedLimits(ds: DataSource, phoneId: number) {
  const limits = await ds
    .getRepository(PhoneLimit)
    .find({ where: { id_phone: phoneId }, order: { id: 'ASC' } });
  return limits.map(({ volume, startpoint }) => ({ volume, startpoint }));
}

describeEachDatabase('RaspiSMS documentation examples sent as curl sends them', (database) => {
  let app: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    app = await startApp(database());
    ds = app.dataSource;
  });

  afterAll(async () => {
    await app?.close();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  describe('get_entries', () => {
    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/list.curl (ca18a7d;
    // the fac2cd9 page lists the paths without an example):
    //   curl https://app.raspisms.fr/api/list/contact/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    it('lists the first contacts of the caller (list.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      await makeContact(ds, other.user.id);
      const john = await makeContact(ds, user.id, { name: 'John', number: '+33612345678' });
      const jane = await makeContact(ds, user.id, {
        name: 'Jane',
        number: '+33612345679',
        data: '{"firstname":"Jane"}',
      });

      const result = await curl(
        app,
        'https://app.raspisms.fr/api/list/contact/',
        '-H',
        `X-Api-Key: ${apiKey}`,
      );

      // smsgw returns ids as JSON numbers, as RaspiSMS on PHP 8 does (list_response.json shows the
      // strings of PHP < 8.1).
      expect(expectSuccess(result, 200)).toEqual([
        expect.objectContaining({
          id: john.id,
          id_user: user.id,
          name: 'John',
          number: '+33612345678',
          data: '{"firstname":"John"}',
        }),
        expect.objectContaining({ id: jane.id, name: 'Jane', data: '{"firstname":"Jane"}' }),
      ]);
      expect([result.body.next, result.body.prev]).toEqual([null, null]);
    });

    describe('pages and cursors (no documentation example; RaspiSMS’s paths)', () => {
      let apiKey: string;
      let ids: number[];

      beforeAll(async () => {
        const made = await makeUser(ds);
        apiKey = made.apiKey;
        ids = [];
        for (let i = 0; i < 27; i += 1) {
          ids.push((await makeContact(ds, made.user.id, { name: `contact ${i}` })).id);
        }
      });

      const listed = (result: RawResponse) =>
        (expectSuccess(result, 200) as Array<{ id: number }>).map((row) => row.id);

      //   curl https://app.raspisms.fr/api/list/contact/1/ -H 'X-Api-Key: …'
      it('lists page 1 after the first 25, with a prev link to the entries before it', async () => {
        const result = await curl(
          app,
          'https://app.raspisms.fr/api/list/contact/1/',
          '-H',
          `X-Api-Key: ${apiKey}`,
        );

        expect(listed(result)).toEqual(ids.slice(25));
        expect(result.body.next).toBeNull();
        expect(result.body.prev).toBe(
          `${app.url}/api/list/contact/before/${ids[25]}/?api_key=${apiKey}`,
        );
      });

      //   curl https://app.raspisms.fr/api/list/contact/after/<id>/ -H 'X-Api-Key: …'
      it('lists the entries after an id', async () => {
        const result = await curl(
          app,
          `https://app.raspisms.fr/api/list/contact/after/${ids[24]}/`,
          '-H',
          `X-Api-Key: ${apiKey}`,
        );

        expect(listed(result)).toEqual(ids.slice(25));
        expect(result.body.next).toBeNull();
        expect(result.body.prev).toBe(
          `${app.url}/api/list/contact/before/${ids[25]}/?api_key=${apiKey}`,
        );
      });

      //   curl https://app.raspisms.fr/api/list/contact/before/<id>/ -H 'X-Api-Key: …'
      it('lists the 25 entries before an id in ascending order, linking both ways', async () => {
        const result = await curl(
          app,
          `https://app.raspisms.fr/api/list/contact/before/${ids[26]}/`,
          '-H',
          `X-Api-Key: ${apiKey}`,
        );

        expect(listed(result)).toEqual(ids.slice(1, 26));
        expect(result.body.next).toBe(
          `${app.url}/api/list/contact/after/${ids[25]}/?api_key=${apiKey}`,
        );
        expect(result.body.prev).toBe(
          `${app.url}/api/list/contact/before/${ids[1]}/?api_key=${apiKey}`,
        );
      });
    });
  });

  // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/usage.curl:
  //   curl 'https://app.raspisms.fr/api/usage/?start=2023-02-01+00:00:00&end=2023-02-28+00:00:00&tag=campaign%'
  //     -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
  // The `+` of the dates is a space once decoded; the lone `%` of the LIKE pattern is not an
  // escape and stays as sent.
  it('counts per phone the SMS sent in February 2023 with a tag starting with campaign (usage.curl)', async () => {
    const { user, apiKey } = await makeUser(ds);
    const other = await makeUser(ds);
    const first = await makePhone(ds, user.id);
    const second = await makePhone(ds, user.id);
    const idle = await makePhone(ds, user.id);
    const foreign = await makePhone(ds, other.user.id);
    const sent = (id_phone: number, at: string, tag: string | null, id_user = user.id) =>
      makeSended(ds, id_user, { id_phone, at, tag });
    await sent(first.id, '2023-02-01 00:00:00', 'campaign-february');
    await sent(first.id, '2023-02-14 12:00:00', 'campaign');
    await sent(first.id, '2023-02-28 00:00:00', 'campaign_2');
    await sent(first.id, '2023-02-28 00:00:01', 'campaign');
    await sent(first.id, '2023-01-31 23:59:59', 'campaign');
    await sent(first.id, '2023-02-10 10:00:00', 'spring-campaign');
    await sent(first.id, '2023-02-10 10:00:00', null);
    await makeSended(ds, user.id, {
      id_phone: second.id,
      at: '2023-02-15 09:00:00',
      tag: 'campaign',
      status: 'failed',
    });
    await sent(foreign.id, '2023-02-15 09:00:00', 'campaign', other.user.id);

    const result = await curl(
      app,
      'https://app.raspisms.fr/api/usage/?start=2023-02-01+00:00:00&end=2023-02-28+00:00:00&tag=campaign%',
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toEqual({
      total: 4,
      phones_volumes: { [first.id]: 3, [second.id]: 1, [idle.id]: 0 },
    });
  });

  // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/sms_status.curl:
  //   curl 'https://app.raspisms.fr/api/stats/sms-status/?start=2023-05-01&end=2023-05-02&id_phone=1'
  //     -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
  // id_phone 1 is replaced by the test's phone. The dates are the `YYYY-MM-DD` form: whole days.
  // The documentation calls `end` exclusive and RaspiSMS's code reads it as midnight; smsgw
  // counts both bounds inclusive and a date-only `end` as that whole day, so every SMS of
  // 2023-05-02 counts and one at 2023-05-03 00:00:00 does not.
  it('counts the SMS of one phone per day and status (sms_status.curl)', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    const otherPhone = await makePhone(ds, user.id);
    const sent = (at: string, status: 'unknown' | 'delivered' | 'failed', id_phone = phone.id) =>
      makeSended(ds, user.id, { id_phone, at, status });
    await sent('2023-05-01 00:00:00', 'failed');
    await sent('2023-05-01 08:00:00', 'unknown');
    await sent('2023-05-01 09:00:00', 'unknown');
    await sent('2023-05-01 23:59:59', 'delivered');
    await sent('2023-05-02 00:00:00', 'delivered');
    await sent('2023-05-02 00:00:01', 'failed');
    await sent('2023-05-02 23:59:59', 'failed');
    await sent('2023-05-03 00:00:00', 'failed');
    await sent('2023-04-30 23:59:59', 'unknown');
    await sent('2023-05-01 10:00:00', 'unknown', otherPhone.id);

    const result = await curl(
      app,
      `https://app.raspisms.fr/api/stats/sms-status/?start=2023-05-01&end=2023-05-02&id_phone=${phone.id}`,
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toEqual([
      { at_ymd: '2023-05-01', id_phone: phone.id, status: 'unknown', nb: 2 },
      { at_ymd: '2023-05-01', id_phone: phone.id, status: 'delivered', nb: 1 },
      { at_ymd: '2023-05-01', id_phone: phone.id, status: 'failed', nb: 1 },
      { at_ymd: '2023-05-02', id_phone: phone.id, status: 'delivered', nb: 1 },
      { at_ymd: '2023-05-02', id_phone: phone.id, status: 'failed', nb: 2 },
    ]);
  });

  // No documentation example (the page only describes the CSV export of the web interface);
  // the query RaspiSMS's code answers:
  //   curl 'https://app.raspisms.fr/api/invalid_number/?volume=2&percent_failed=50&percent_unknown=0'
  //     -H 'X-Api-Key: …'
  // smsgw differs from RaspiSMS on purpose (docs/api-choices.md#statistics): only the caller's
  // messages count, and the percentages are numbers from 0 to 100, not 0–1 ratios in strings.
  it('lists the numbers whose SMS failed at least half the time', async () => {
    const { user, apiKey } = await makeUser(ds);
    const other = await makeUser(ds);
    const sent = (
      destination: string,
      status: 'unknown' | 'failed' | 'delivered',
      id_user = user.id,
    ) => makeSended(ds, id_user, { destination, status });
    for (const status of ['failed', 'failed', 'failed', 'unknown'] as const) {
      await sent('+33612345678', status);
    }
    for (const status of ['failed', 'delivered', 'delivered', 'delivered'] as const) {
      await sent('+33612345679', status);
    }
    await sent('+33612345670', 'failed');
    for (const status of ['failed', 'failed', 'failed', 'failed'] as const) {
      await sent('+33612345679', status, other.user.id);
    }

    const result = await curl(
      app,
      'https://app.raspisms.fr/api/invalid_number/?volume=2&percent_failed=50&percent_unknown=0',
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toEqual([
      {
        destination: '+33612345678',
        total_sms_sent: 4,
        failed_percentage: 75,
        unknown_percentage: 25,
      },
    ]);
    expect([result.body.next, result.body.prev]).toEqual([null, null]);
  });

  describe('get_send_sms', () => {
    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/get_send-sms.curl:
    //   curl -X GET "https://raspisms.fr/api/send-sms/?api_key=ac122e8d46faac0615c181b93d07612d&text=Mon%20SMS%20d%27exemple&to=%2B33612345678"
    it('schedules "Mon SMS d\'exemple" to +33612345678 now (get_send-sms.curl)', async () => {
      freezeDate('2024-03-05T10:20:30Z');
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'GET',
        `https://raspisms.fr/api/send-sms/?api_key=${apiKey}&text=Mon%20SMS%20d%27exemple&to=%2B33612345678`,
      );

      const id = expectSuccess(result, 200) as number;
      expect(await storedScheduled(ds, id)).toEqual({
        scheduled: expect.objectContaining({
          id_user: user.id,
          at: '2024-03-05 10:20:30',
          text: "Mon SMS d'exemple",
          flash: 0,
          mms: 0,
          tag: null,
          id_phone: null,
          id_phone_group: null,
        }),
        numbers: [{ number: '+33612345678', data: '[]' }],
        contactIds: [],
        groupIds: [],
        conditionalGroupIds: [],
        medias: [],
      });
    });

    // The documented example with an unencoded `+` (RaspiSMS issue #183): the query decodes it as a
    // space, and ` 33612345678` is read as the `+33612345678` that was typed.
    //   curl -X GET "https://raspisms.fr/api/send-sms/?api_key=…&text=Mon%20SMS%20d%27exemple&to=+33612345678"
    it('reads a raw + in to as the + that was typed (issue #183)', async () => {
      const { apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'GET',
        `https://raspisms.fr/api/send-sms/?api_key=${apiKey}&text=Mon%20SMS%20d%27exemple&to=+33612345678`,
      );

      const id = expectSuccess(result, 200) as number;
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
      ]);
    });

    // The documented argument id_phone, in the example's form:
    //   curl -X GET "https://raspisms.fr/api/send-sms/?api_key=…&text=Mon%20SMS%20d%27exemple&to=%2B33612345678&id_phone=<id>"
    it('sends through the id_phone given', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const result = await curl(
        app,
        '-X',
        'GET',
        `https://raspisms.fr/api/send-sms/?api_key=${apiKey}&text=Mon%20SMS%20d%27exemple&to=%2B33612345678&id_phone=${phone.id}`,
      );

      const id = expectSuccess(result, 200) as number;
      expect((await storedScheduled(ds, id)).scheduled).toMatchObject({ id_phone: phone.id });
    });
  });

  describe('post_scheduled', () => {
    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_scheduled1.curl:
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'text=Mon%20SMS%20d%27exemple' -d 'numbers=%2B33612345678'
    // The documentation answers 200 (204 in older versions); a creation is 201, as
    // in RaspiSMS's code.
    it('schedules "Mon SMS d\'exemple" to +33612345678 now (post_scheduled1.curl)', async () => {
      freezeDate('2024-03-05T10:20:30Z');
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Mon%20SMS%20d%27exemple',
        '-d',
        'numbers=%2B33612345678',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toEqual({
        scheduled: expect.objectContaining({
          id_user: user.id,
          at: '2024-03-05 10:20:30',
          text: "Mon SMS d'exemple",
          flash: 0,
          mms: 0,
          tag: null,
          id_phone: null,
          id_phone_group: null,
        }),
        numbers: [{ number: '+33612345678', data: '[]' }],
        contactIds: [],
        groupIds: [],
        conditionalGroupIds: [],
        medias: [],
      });
    });

    // The same with the key as the POST parameter api_key, which the page also documents.
    it('takes the API key from the form field api_key', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-d',
        `api_key=${apiKey}`,
        '-d',
        'text=Mon%20SMS%20d%27exemple',
        '-d',
        'numbers=%2B33612345678',
      );

      const id = expectSuccess(result, 201) as number;
      expect((await storedScheduled(ds, id)).scheduled).toMatchObject({ id_user: user.id });
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_scheduled2.curl:
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'text=Mon%20SMS%20d%27exemple' -d contacts[]=11' -d 'contacts[]=12' -d 'id_phone=3'
    //     -d 'at=2020-06-17 17:30:25'
    // As printed, the quote missing before contacts[]=11 leaves an unterminated quote: no shell
    // runs it. This is the command it means, `-d 'contacts[]=11'`. Contacts 11 and 12 and phone 3
    // are replaced by the test's. The date, in the past, is kept: it is sent at the next tick.
    it('schedules to two contacts through one phone at a date (post_scheduled2.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);
      const john = await makeContact(ds, user.id);
      const jane = await makeContact(ds, user.id, { number: '+33612345679' });
      const phone = await makePhone(ds, user.id);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Mon%20SMS%20d%27exemple',
        '-d',
        `contacts[]=${john.id}`,
        '-d',
        `contacts[]=${jane.id}`,
        '-d',
        `id_phone=${phone.id}`,
        '-d',
        'at=2020-06-17 17:30:25',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toEqual({
        scheduled: expect.objectContaining({
          id_user: user.id,
          at: '2020-06-17 17:30:25',
          text: "Mon SMS d'exemple",
          id_phone: phone.id,
          id_phone_group: null,
        }),
        numbers: [],
        contactIds: [john.id, jane.id],
        groupIds: [],
        conditionalGroupIds: [],
        medias: [],
      });
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_scheduled3.curl:
    //   curl https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -F "text=Mon SMS d'exemple" -F 'numbers=+33612345678' -F 'mms=1'
    //     -F 'medias[]=@example1.png' -F 'medias[]=@example2.png'
    // A multipart value is not urlencoded: the `+` stays a `+`. The two images are
    // test/fixtures/raspisms/example1.png and example2.png.
    it('schedules an MMS with two images (post_scheduled3.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-F',
        "text=Mon SMS d'exemple",
        '-F',
        'numbers=+33612345678',
        '-F',
        'mms=1',
        '-F',
        'medias[]=@example1.png',
        '-F',
        'medias[]=@example2.png',
      );

      const id = expectSuccess(result, 201) as number;
      const stored = await storedScheduled(ds, id);
      expect(stored).toMatchObject({
        scheduled: { id_user: user.id, text: "Mon SMS d'exemple", mms: 1, flash: 0 },
        numbers: [{ number: '+33612345678', data: '[]' }],
      });
      expect(stored.medias).toHaveLength(2);
      stored.medias.forEach((media, index) => {
        expect(media.id_user).toBe(user.id);
        expect(media.path).toMatch(new RegExp(`^${user.id}/[0-9a-f]{32}\\.png$`));
        expect(readFileSync(join(database().dataDir, 'media', media.path))).toEqual(
          readFileSync(join(FIXTURES, `example${index + 1}.png`)),
        );
      });
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_scheduled4.curl
    // with the CSV of the page's Exemple 4 (source/_code_examples/sms/sms_csv.csv, here
    // test/fixtures/raspisms/sms_csv.csv):
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -F 'text=Bonjour {{contact.firstname}}' -F 'numbers_csv=@sms_csv.csv'
    // curl knows no type for `.csv`: the part goes as application/octet-stream. Each number's
    // data is the other columns, as RaspiSMS's json_encode writes them (`"0"` kept).
    it('schedules to the numbers of a CSV file with their data (post_scheduled4.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-F',
        'text=Bonjour {{contact.firstname}}',
        '-F',
        'numbers_csv=@sms_csv.csv',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toMatchObject({
        scheduled: { id_user: user.id, text: 'Bonjour {{contact.firstname}}', mms: 0 },
        numbers: [
          {
            number: '+33612345678',
            data: '{"lastname":"Doe","firstname":"John","birthdate":"1990-10-22","gender":"male","vip":"1"}',
          },
          {
            number: '+33612345679',
            data: '{"lastname":"Doe","firstname":"Jane","birthdate":"1992-08-15","gender":"female","vip":"0"}',
          },
        ],
        medias: [],
      });
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_scheduled5.curl:
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'text=Bonjour {{contact.firstname}}' -d 'numbers[0][number]=%2B33612345678'
    //     -d 'numbers[0][data]={"firstname":"John", "lastname":"Doe"}' -d 'numbers[1][number]=%2B33612345679'
    //     -d 'numbers[1][data]={"firstname":"Jane", "lastname":"Doe"}'
    // curl sends the braces, quotes and spaces raw; each data string is stored as sent.
    it('schedules to numbers with their template data (post_scheduled5.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Bonjour {{contact.firstname}}',
        '-d',
        'numbers[0][number]=%2B33612345678',
        '-d',
        'numbers[0][data]={"firstname":"John", "lastname":"Doe"}',
        '-d',
        'numbers[1][number]=%2B33612345679',
        '-d',
        'numbers[1][data]={"firstname":"Jane", "lastname":"Doe"}',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toMatchObject({
        scheduled: { id_user: user.id, text: 'Bonjour {{contact.firstname}}' },
        numbers: [
          { number: '+33612345678', data: '{"firstname":"John", "lastname":"Doe"}' },
          { number: '+33612345679', data: '{"firstname":"Jane", "lastname":"Doe"}' },
        ],
      });
    });

    // No documentation example; the scalar-or-list forms RaspiSMS's code reads:
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: …' -d 'text=Hello'
    //     -d 'contacts=<id>' -d 'groups[]=<id>' -d 'conditional_groups=<id>'
    it('schedules to a contact, a group and a conditional group given as scalars or lists', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);
      const group = await makeGroup(ds, user.id, [contact.id]);
      const conditionalGroup = await makeConditionalGroup(ds, user.id);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Hello',
        '-d',
        `contacts=${contact.id}`,
        '-d',
        `groups[]=${group.id}`,
        '-d',
        `conditional_groups=${conditionalGroup.id}`,
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toMatchObject({
        numbers: [],
        contactIds: [contact.id],
        groupIds: [group.id],
        conditionalGroupIds: [conditionalGroup.id],
      });
    });

    // No documentation example; the arguments flash, tag, id_phone_group and at of the page,
    // with the `numbers[0][data]={"firstname":"John"}` form and a plain number beside it:
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: …' -d 'text=Flash news'
    //     -d 'numbers[0][number]=%2B33612345678' -d 'numbers[0][data]={"firstname":"John"}'
    //     -d 'numbers[1]=%2B33612345679' -d 'flash=1' -d 'tag=campaign-2024'
    //     -d 'id_phone_group=<id>' -d 'at=2030-01-31 08:30:00'
    it('schedules a tagged flash SMS through a phone group at a date', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const phoneGroup = await makePhoneGroup(ds, user.id, [phone.id]);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Flash news',
        '-d',
        'numbers[0][number]=%2B33612345678',
        '-d',
        'numbers[0][data]={"firstname":"John"}',
        '-d',
        'numbers[1]=%2B33612345679',
        '-d',
        'flash=1',
        '-d',
        'tag=campaign-2024',
        '-d',
        `id_phone_group=${phoneGroup.id}`,
        '-d',
        'at=2030-01-31 08:30:00',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toMatchObject({
        scheduled: {
          id_user: user.id,
          at: '2030-01-31 08:30:00',
          text: 'Flash news',
          flash: 1,
          mms: 0,
          tag: 'campaign-2024',
          id_phone: null,
          id_phone_group: phoneGroup.id,
        },
        numbers: [
          { number: '+33612345678', data: '{"firstname":"John"}' },
          { number: '+33612345679', data: '[]' },
        ],
      });
    });

    // post_scheduled1.curl with the `+` left unencoded (RaspiSMS issue #183):
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: …'
    //     -d 'text=Mon%20SMS%20d%27exemple' -d 'numbers=+33612345678'
    // The form decodes `+` as a space, which RaspiSMS then drops; smsgw reads ` 33612345678` as
    // the `+33612345678` that was typed.
    it('reads a number sent with a raw + as the + that was typed (issue #183)', async () => {
      const { apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Mon%20SMS%20d%27exemple',
        '-d',
        'numbers=+33612345678',
      );

      const id = expectSuccess(result, 201) as number;
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
      ]);
    });

    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: …' -d 'text=Hello'
    //     -d 'numbers[]=+33612345678' -d 'numbers[]=%2B33612345679'
    it('keeps a number sent with a raw + beside an encoded one (issue #183)', async () => {
      const { apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'text=Hello',
        '-d',
        'numbers[]=+33612345678',
        '-d',
        'numbers[]=%2B33612345679',
      );

      const id = expectSuccess(result, 201) as number;
      expect((await storedScheduled(ds, id)).numbers).toEqual([
        { number: '+33612345678', data: '[]' },
        { number: '+33612345679', data: '[]' },
      ]);
    });

    // curl's --data-urlencode encodes the `+`, which reads as it always did.
    //   curl -X POST https://app.raspisms.fr/api/scheduled/ -H 'X-Api-Key: …'
    //     --data-urlencode "text=Mon SMS d'exemple" --data-urlencode 'numbers=+33612345678'
    it('keeps a number sent with --data-urlencode', async () => {
      const { apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/scheduled/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '--data-urlencode',
        "text=Mon SMS d'exemple",
        '--data-urlencode',
        'numbers=+33612345678',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await storedScheduled(ds, id)).toMatchObject({
        scheduled: { text: "Mon SMS d'exemple" },
        numbers: [{ number: '+33612345678', data: '[]' }],
      });
    });
  });

  // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/delete_scheduled.curl:
  //   curl -X DELETE https://app.raspisms.fr/api/scheduled/13 -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
  // Scheduled message 13 is replaced by the test's. The documentation answers 204 with no body;
  // smsgw answers 200 with the envelope and `true`.
  it('deletes a scheduled message with its numbers (delete_scheduled.curl)', async () => {
    const { user, apiKey } = await makeUser(ds);
    const scheduled = await makeScheduled(ds, user.id, {
      numbers: [{ number: '+33612345678' }],
    });

    const result = await curl(
      app,
      '-X',
      'DELETE',
      `https://app.raspisms.fr/api/scheduled/${scheduled.id}`,
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toBe(true);
    expect(await storedScheduled(ds, scheduled.id)).toMatchObject({
      scheduled: null,
      numbers: [],
    });
  });

  describe('post_phone', () => {
    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_phone1.curl:
    //   curl -X POST https://app.raspisms.fr/api/phone/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'name=Test phone' -d 'adapter=adapters\TestAdapter'
    // The RaspiSMS class name is the test adapter's alias; the phone stores its id `test`
    // (docs/adapters.md#descriptor). The documentation answers 200; a creation is 201.
    it('creates a test phone named by its RaspiSMS class (post_phone1.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/phone/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'name=Test phone',
        '-d',
        'adapter=adapters\\TestAdapter',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await ds.getRepository(Phone).findOneByOrFail({ id })).toMatchObject({
        id_user: user.id,
        name: 'Test phone',
        adapter: 'test',
        adapter_data: '{}',
        priority: 0,
        status: 'available',
      });
      expect(await storedLimits(ds, id)).toEqual([]);
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_phone3.curl:
    //   curl -X POST https://app.raspisms.fr/api/phone/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'name=Test phone' -d 'adapter=adapters\TestAdapter' -d "priority=2"
    //     -d 'limits[0][volume]=100' -d 'limits[0][startpoint]=today' -d 'limits[1][volume]=500'
    //     -d 'limits[1][startpoint]=this week midnight'
    it('creates a test phone with a priority and two limits (post_phone3.curl)', async () => {
      const { user, apiKey } = await makeUser(ds);

      const result = await curl(
        app,
        '-X',
        'POST',
        'https://app.raspisms.fr/api/phone/',
        '-H',
        `X-Api-Key: ${apiKey}`,
        '-d',
        'name=Test phone',
        '-d',
        'adapter=adapters\\TestAdapter',
        '-d',
        'priority=2',
        '-d',
        'limits[0][volume]=100',
        '-d',
        'limits[0][startpoint]=today',
        '-d',
        'limits[1][volume]=500',
        '-d',
        'limits[1][startpoint]=this week midnight',
      );

      const id = expectSuccess(result, 201) as number;
      expect(await ds.getRepository(Phone).findOneByOrFail({ id })).toMatchObject({
        id_user: user.id,
        name: 'Test phone',
        adapter: 'test',
        priority: 2,
        status: 'available',
      });
      expect(await storedLimits(ds, id)).toEqual([
        { volume: 100, startpoint: 'today' },
        { volume: 500, startpoint: 'this week midnight' },
      ]);
    });

    // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/post_phone2.curl
    // (7be7efa; the first version misspelt adapter_datas):
    //   curl -X POST http://127.0.0.1/raspisms/api/phone/ -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
    //     -d 'name=My Octopush Phone' -d 'adapter=adapters\OctopushShortcodeAdapter'
    //     -d 'adapter_data[login]=mail@example.com' -d 'adapter_data[api_key]=4Vnc9rDqFcJxp6ywBMtIydtFEsQ0J13RXG8Ms96F'
    // A self-hosted RaspiSMS lives under /raspisms: smsgw serves there with BASE_PATH=/raspisms.
    // The phone's credentials are checked against a fake Octopush API (OCTOPUSH_API_URL) that
    // knows the example's login and API key. The documentation answers 200; a creation is 201.
    describe('under BASE_PATH=/raspisms (post_phone2.curl)', () => {
      let mounted: TestApp;
      let octopush: { fake: FakeOctopush; server: FakeServer };

      beforeAll(async () => {
        octopush = await startFakeOctopush();
        mounted = await startApp(database(), {
          BASE_PATH: '/raspisms',
          OCTOPUSH_API_URL: octopush.server.url,
        });
      });

      afterAll(async () => {
        await mounted?.close();
        await octopush?.server.close();
      });

      it('creates the Octopush phone, its credentials checked with Octopush', async () => {
        const { user, apiKey } = await makeUser(ds);

        const result = await curl(
          mounted,
          '-X',
          'POST',
          'http://127.0.0.1/raspisms/api/phone/',
          '-H',
          `X-Api-Key: ${apiKey}`,
          '-d',
          'name=My Octopush Phone',
          '-d',
          'adapter=adapters\\OctopushShortcodeAdapter',
          '-d',
          'adapter_data[login]=mail@example.com',
          '-d',
          'adapter_data[api_key]=4Vnc9rDqFcJxp6ywBMtIydtFEsQ0J13RXG8Ms96F',
        );

        const id = expectSuccess(result, 201) as number;
        expect(await ds.getRepository(Phone).findOneByOrFail({ id })).toMatchObject({
          id_user: user.id,
          name: 'My Octopush Phone',
          adapter: 'octopush_shortcode',
          priority: 0,
          status: 'available',
        });
        expect(
          octopush.fake.calls.map(({ method, path, headers }) => ({
            route: `${method} ${path}`,
            login: headers['api-login'],
            key: headers['api-key'],
          })),
        ).toEqual([
          {
            route: 'GET /wallet/check-balance',
            login: 'mail@example.com',
            key: '4Vnc9rDqFcJxp6ywBMtIydtFEsQ0J13RXG8Ms96F',
          },
        ]);
      });

      it('refuses the phone when Octopush refuses the credentials, with CANNOT_CREATE', async () => {
        const { user, apiKey } = await makeUser(ds);
        octopush.fake.reply = () => ({
          status: 401,
          body: { code: 101, message: 'Invalid api-login or api-key' },
        });

        try {
          const result = await curl(
            mounted,
            '-X',
            'POST',
            'http://127.0.0.1/raspisms/api/phone/',
            '-H',
            `X-Api-Key: ${apiKey}`,
            '-d',
            'name=My Octopush Phone',
            '-d',
            'adapter=adapters\\OctopushShortcodeAdapter',
            '-d',
            'adapter_data[login]=mail@example.com',
            '-d',
            'adapter_data[api_key]=4Vnc9rDqFcJxp6ywBMtIydtFEsQ0J13RXG8Ms96F',
          );

          expect(expectFailure(result, 422, CANNOT_CREATE)).toContain('check login and api_key');
          expect(await ds.getRepository(Phone).countBy({ id_user: user.id })).toBe(0);
        } finally {
          octopush.fake.reply = null;
        }
      });
    });
  });

  // No documentation example; the form RaspiSMS's code reads:
  //   curl -X POST https://app.raspisms.fr/api/phone/<id>/ -H 'X-Api-Key: …' -d 'name=Renamed phone'
  //     -d 'priority=3' -d 'adapter_data[delivery]=failed' -d 'limits[0][volume]=10'
  //     -d 'limits[0][startpoint]=-24 hours'
  // RaspiSMS answers 201; an update is 200.
  it('updates a phone: name, priority, adapter data and limits', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { name: 'Test phone' });
    await makePhoneLimit(ds, phone.id, { volume: 100, startpoint: 'today' });

    const result = await curl(
      app,
      '-X',
      'POST',
      `https://app.raspisms.fr/api/phone/${phone.id}/`,
      '-H',
      `X-Api-Key: ${apiKey}`,
      '-d',
      'name=Renamed phone',
      '-d',
      'priority=3',
      '-d',
      'adapter_data[delivery]=failed',
      '-d',
      'limits[0][volume]=10',
      '-d',
      'limits[0][startpoint]=-24 hours',
    );

    expect(expectSuccess(result, 200)).toBe(true);
    const stored = await ds.getRepository(Phone).findOneByOrFail({ id: phone.id });
    expect(stored).toMatchObject({ name: 'Renamed phone', adapter: 'test', priority: 3 });
    expect(JSON.parse(stored.adapter_data ?? 'null')).toEqual({ delivery: 'failed' });
    expect(await storedLimits(ds, phone.id)).toEqual([{ volume: 10, startpoint: '-24 hours' }]);
  });

  // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/delete_phone.curl:
  //   curl -X DELETE https://app.raspisms.fr/api/phone/42 -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
  // Phone 42 is replaced by the test's. RaspiSMS answers this with a 500 (its routing reaches the
  // update route first); smsgw deletes the phone and answers 200 with `true` where the
  // documentation says 204 (docs/api-choices.md#paths-and-methods).
  it('deletes a phone with its limits (delete_phone.curl)', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    await makePhoneLimit(ds, phone.id);

    const result = await curl(
      app,
      '-X',
      'DELETE',
      `https://app.raspisms.fr/api/phone/${phone.id}`,
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toBe(true);
    expect(await ds.getRepository(Phone).countBy({ id: phone.id })).toBe(0);
    expect(await storedLimits(ds, phone.id)).toEqual([]);
  });

  // Source: RaspbianFrance/raspisms-documentation source/_code_examples/api/update_phone_status.curl:
  //   curl -X POST https://app.raspisms.fr/api/phone/50/status -H 'X-Api-Key: ac122e8d46faac0615c181b93d07612d'
  // Phone 50 is replaced by the test's. With -X POST and no data curl sends no body at all.
  it("re-checks a phone's status through its adapter (update_phone_status.curl)", async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { status: 'unavailable' });

    const result = await curl(
      app,
      '-X',
      'POST',
      `https://app.raspisms.fr/api/phone/${phone.id}/status`,
      '-H',
      `X-Api-Key: ${apiKey}`,
    );

    expect(expectSuccess(result, 200)).toBe('available');
    expect(await ds.getRepository(Phone).findOneByOrFail({ id: phone.id })).toMatchObject({
      status: 'available',
    });
  });

  // No documentation example; the form field `status` RaspiSMS's code reads:
  //   curl -X POST https://app.raspisms.fr/api/phone/<id>/status/force/ -H 'X-Api-Key: …' -d 'status=disabled'
  // RaspiSMS answers 201 with only `{"response": "disabled"}`; smsgw answers 200 with the whole
  // envelope.
  it("forces a phone's status to disabled", async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);

    const result = await curl(
      app,
      '-X',
      'POST',
      `https://app.raspisms.fr/api/phone/${phone.id}/status/force/`,
      '-H',
      `X-Api-Key: ${apiKey}`,
      '-d',
      'status=disabled',
    );

    expect(expectSuccess(result, 200)).toBe('disabled');
    expect(await ds.getRepository(Phone).findOneByOrFail({ id: phone.id })).toMatchObject({
      status: 'disabled',
    });
  });
});
