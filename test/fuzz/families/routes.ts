import fc from 'fast-check';
import { PNG } from '../../support/scheduled.factories';
import { readEnvelope } from '../support/checks';
import {
  Entry,
  formPairs,
  jsonObject,
  list,
  map,
  multipart,
  num,
  str,
  urlencoded,
  Value,
} from '../support/params';
import { segment } from '../support/requests';
import { family, Family, requestFamily } from '../support/runner';
import { Answer, HttpCase } from '../support/wire';
import { hostileText, idText } from '../support/values';
import { idPool, KEYS, World } from '../support/world';
import { ADAPTERS } from './api-values';

/*
 * Authentication in every place a key may travel, paths and methods nobody serves, the provider
 * callbacks with any adapter, method, body and header, and the media route.
 */

type KeyPick =
  | 'absent'
  | 'empty'
  | 'main'
  | 'upper'
  | 'other'
  | 'suspended'
  | 'unknown'
  | 'malformed'
  | 'spaced'
  | 'list'
  | 'map'
  | 'null';

const KEY_OF: Partial<Record<KeyPick, string>> = {
  main: KEYS.main,
  // Keys are compared case-insensitively, as RaspiSMS does.
  upper: KEYS.main.toUpperCase(),
  other: KEYS.other,
  suspended: KEYS.suspended,
  unknown: KEYS.unknown,
  malformed: `${KEYS.main.slice(0, 31)}g`,
  spaced: ` ${KEYS.main}`,
  empty: '',
};

const keyPick = fc.constantFrom<KeyPick>(
  'absent',
  'absent',
  'empty',
  'main',
  'upper',
  'other',
  'suspended',
  'unknown',
  'malformed',
  'spaced',
  'list',
  'map',
  'null',
);

interface AuthCase {
  method: string;
  path: string;
  encoding: 'none' | 'form' | 'json' | 'multipart';
  query: KeyPick;
  form: KeyPick;
  headers: KeyPick[];
}

/** What the key of each place says to the guard: absent (read the next place), or a key. */
function presented(pick: KeyPick): string | null {
  switch (pick) {
    case 'absent':
    case 'empty':
    case 'null':
      return null;
    case 'list':
    case 'map':
      // A key given as a list or a map is a key that matches nobody.
      return '';
    default:
      return KEY_OF[pick] ?? '';
  }
}

/** The key the guard uses: query, then form (not for GET), then X-Api-Key (joined when repeated). */
function keyUsed(value: AuthCase): string | null {
  // HTTP drops the blanks around a header value; Node joins repeated headers with ", ".
  const headerValues = value.headers
    .filter((pick) => pick !== 'absent')
    .map((pick) => (KEY_OF[pick] ?? '').trim());
  const places = [
    presented(value.query === 'null' ? 'empty' : value.query),
    // GET and HEAD read the query string only: a body of theirs carries no key.
    ['GET', 'HEAD'].includes(value.method) || value.encoding === 'none'
      ? null
      : presented(value.form),
    headerValues.length ? headerValues.join(', ') || null : null,
  ];
  return places.find((key) => key !== null) ?? null;
}

function keyValue(pick: KeyPick): Value | null {
  switch (pick) {
    case 'absent':
      return null;
    case 'null':
      return { k: 'null' };
    case 'list':
      return list([str(KEYS.main)]);
    case 'map':
      return map([['a', str(KEYS.main)]]);
    default:
      return str(KEY_OF[pick] ?? '');
  }
}

function authRequest(value: AuthCase): HttpCase {
  const queryKey = keyValue(value.query === 'null' ? 'empty' : value.query);
  const query = queryKey ? urlencoded(formPairs([['api_key', queryKey]], 'push')) : '';
  const formKey = keyValue(value.form);
  const fields: Entry[] = [['status', str('available')]];
  if (formKey) {
    fields.push(['api_key', formKey]);
  }
  const headers: Array<[string, string]> = value.headers
    .filter((pick) => pick !== 'absent')
    .map((pick) => ['X-Api-Key', KEY_OF[pick] ?? '']);
  let body: Buffer | null = null;
  if (value.encoding === 'form') {
    headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
    body = Buffer.from(urlencoded(formPairs(fields, 'push')));
  } else if (value.encoding === 'json') {
    headers.push(['Content-Type', 'application/json']);
    body = Buffer.from(jsonObject(fields));
  } else if (value.encoding === 'multipart') {
    headers.push(['Content-Type', 'multipart/form-data; boundary=fuzzauth']);
    body = multipart('fuzzauth', formPairs(fields, 'push'), []);
  }
  return {
    kind: 'http',
    method: value.method,
    path: query ? `${value.path}?${query}` : value.path,
    headers,
    body,
  };
}

/** The answer the key must get: 401 without a user, 403 for a suspended one, else the operation's. */
function authProblems(value: AuthCase, answer: Answer, callback: boolean): string[] {
  const key = keyUsed(value);
  const user = key?.toLowerCase();
  const expected =
    user === KEYS.main || user === KEYS.other ? null : user === KEYS.suspended ? 403 : 401;
  const status = answer.status ?? 0;
  const read = readEnvelope(answer.body);
  const code = 'envelope' in read ? read.envelope.error : undefined;
  const what = `key used ${JSON.stringify(key)}`;
  if (expected === null) {
    return status === 401 || status === 403
      ? [`${what}: a valid key was refused with HTTP ${status}`]
      : [];
  }
  if (status !== expected) {
    return [`${what}: expected HTTP ${expected}, got ${status}`];
  }
  if (!callback && code !== (expected === 401 ? 1 : 16)) {
    return [`${what}: expected error ${expected === 401 ? 1 : 16}, got ${String(code)}`];
  }
  return [];
}

function authArbitrary(targets: Array<[string, string]>): fc.Arbitrary<AuthCase> {
  return fc
    .record({
      target: fc.constantFrom(...targets),
      encoding: fc.constantFrom<AuthCase['encoding']>('none', 'form', 'json', 'multipart'),
      query: keyPick,
      form: keyPick,
      headers: fc.array(keyPick, { maxLength: 2 }),
    })
    .map(({ target: [method, path], encoding, ...keys }) => ({
      method,
      path,
      encoding: method === 'GET' ? 'none' : encoding,
      ...keys,
    }));
}

export const auth: Family = family(
  'auth',
  4,
  (world) =>
    authArbitrary([
      ['GET', '/api/list/phone/'],
      ['GET', '/api/usage/'],
      ['GET', `/api/list/scheduled/after/${world.own.scheduled[0]}/`],
      ['POST', `/api/phone/${world.own.phone[0]}/status/`],
      ['POST', `/api/phone/${world.own.phone[0]}/status/force/`],
      ['DELETE', '/api/scheduled/999999/'],
      ['POST', '/api/phone/999999/'],
    ]),
  async (probe, value) => {
    await probe.send(authRequest(value), {
      expect: (answer) => authProblems(value, answer, false),
    });
  },
);

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PATCH',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
  'SEARCH',
  'PURGE',
  'REPORT',
  'MERGE',
  'NOTIFY',
  'SUBSCRIBE',
  'LINK',
  'UNLINK',
];

const SEGMENTS = [
  'api',
  'list',
  'phone',
  'scheduled',
  'usage',
  'stats',
  'sms-status',
  'send-sms',
  'invalid_number',
  'status',
  'force',
  'after',
  'before',
  'me',
  'contact',
  'media',
  'callback',
  // Ids of no entry: a random path must not delete the entries other families use.
  '999999',
  '0',
  '-1',
  '%zz',
  '..',
  '.',
  '',
  'API',
  'Phone',
  'index.html',
  'favicon.ico',
  '%2e%2e',
  '*',
  ';',
  'a;b=c',
];

export const unknownRoutes: Family = requestFamily('unknown-routes', 3, () =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      prefix: fc.constantFrom('/api/', '/', '/API/', '//api/', '/api//'),
      segments: fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 }),
      slash: fc.boolean(),
      body: fc.option(fc.constantFrom('text=a', '{"text":"a"}'), { freq: 3 }),
    })
    .map(({ method, prefix, segments, slash, body }): HttpCase => ({
      kind: 'http',
      method,
      path: `${prefix}${segments.join('/')}${slash ? '/' : ''}?api_key=${KEYS.main}`,
      headers: body
        ? [
            [
              'Content-Type',
              body.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded',
            ],
          ]
        : [],
      body: body ? Buffer.from(body) : null,
    })),
);

const CALLBACK_ADAPTERS = [
  ...ADAPTERS,
  'test_adapter',
  'twilio_virtual_number_adapter',
  'kannel_adapter',
  'ovh_sms_shortcode_adapter',
  'TEST',
  'unknown',
  '__proto__',
  'constructor',
  '%zz',
  '..',
  'adapters%5CTestAdapter',
];

const CALLBACK_FIELDS = [
  'uid',
  'status',
  'origin',
  'text',
  'at',
  'MessageSid',
  'MessageStatus',
  'From',
  'To',
  'Body',
  'AccountSid',
  'sms_uid',
  'type',
  'from',
  'time',
  'id',
  'dlr',
  '__proto__',
  'api_key',
];

interface CallbackCase {
  method: string;
  path: string;
  auth: AuthCase;
  fields: Entry[];
  encoding: 'query' | 'form' | 'json' | 'multipart' | 'text' | 'garbage' | 'none';
  charset: string | null;
  headers: Array<[string, string]>;
}

function callbackValue(world: World): fc.Arbitrary<Value> {
  return fc.oneof(
    fc
      .constantFrom(
        ...world.uids,
        'delivered',
        'failed',
        'unknown',
        'undelivered',
        'canceled',
        '1',
        '2',
        '16',
        '+33612345678',
        'STOP',
        'stop sms',
        '2024-01-01 00:00:00',
        '1704067200',
        'SM0123',
      )
      .map(str),
    hostileText.map(str),
    fc.constantFrom<Value>(list([str('a')]), map([['a', str('b')]]), num(1)),
  );
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path.split('?')[0]);
    return true;
  } catch {
    return false;
  }
}

/** A body in the charset its Content-Type declares, as a provider sends it (Kannel: UTF-16BE). */
function encodeText(text: string, charset: string | null): Buffer {
  switch (charset?.toLowerCase()) {
    case 'utf-16le':
      return Buffer.from(text, 'utf16le');
    case 'utf-16be':
      return Buffer.from(text, 'utf16le').swap16();
    case 'iso-8859-1':
      return Buffer.from(text, 'latin1');
    default:
      return Buffer.from(text, 'utf8');
  }
}

export const callbacks: Family = family(
  'callbacks',
  6,
  (world) =>
    fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
        kind: fc.constantFrom('status', 'reception'),
        adapter: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...CALLBACK_ADAPTERS) },
          {
            weight: 1,
            arbitrary: hostileText.map(
              (text) =>
                encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '')).slice(0, 200) || 'x',
            ),
          },
        ),
        phone: fc.oneof(
          idText(idPool(world, 'phone')).map(segment),
          fc.constantFrom('%zz', '-1', 'abc', '99999999999999999999'),
        ),
        keyPlace: fc.record({
          query: keyPick,
          form: keyPick,
          headers: fc.array(keyPick, { maxLength: 1 }),
        }),
        fields: fc.array(fc.tuple(fc.constantFrom(...CALLBACK_FIELDS), callbackValue(world)), {
          maxLength: 6,
        }),
        encoding: fc.constantFrom<CallbackCase['encoding']>(
          'query',
          'form',
          'json',
          'multipart',
          'text',
          'garbage',
          'none',
        ),
        charset: fc.option(
          fc.constantFrom('utf-8', 'UTF-16BE', 'utf-16le', 'iso-8859-1', 'bogus', ''),
          { freq: 3 },
        ),
        headers: fc.array(
          fc.tuple(
            fc.constantFrom(
              'X-Twilio-Signature',
              'X-Kannel-From',
              'X-Kannel-Time',
              'X-Kannel-To',
              'X-Kannel-Coding',
              'X-Kannel-Charset',
              'X-Request-Id',
              'X-Forwarded-Proto',
              'X-Forwarded-Host',
              'Host',
            ),
            fc.constantFrom(
              '+33612345678',
              '2024-01-01 00:00:00',
              '1704067200',
              '2',
              'garbage',
              '',
              'a'.repeat(300),
              'x, y',
              'dGVzdA==',
              '127.0.0.1:1',
            ),
          ),
          { maxLength: 3 },
        ),
      })
      .map(
        ({
          method,
          kind,
          adapter,
          phone,
          keyPlace,
          fields,
          encoding,
          charset,
          headers,
        }): CallbackCase => {
          const path =
            kind === 'status'
              ? `/callback/status/${adapter}/`
              : `/callback/reception/${adapter}/${phone}/`;
          return {
            method,
            path,
            auth: {
              method,
              path,
              encoding:
                encoding === 'form' || encoding === 'json' || encoding === 'multipart'
                  ? encoding
                  : 'none',
              ...keyPlace,
            },
            fields,
            encoding,
            charset,
            headers,
          };
        },
      ),
  async (probe, value) => {
    const wire = authRequest({ ...value.auth, form: 'absent', encoding: 'none' });
    const form = keyValue(value.auth.form);
    const fields: Entry[] =
      form && value.auth.encoding !== 'none' ? [['api_key', form], ...value.fields] : value.fields;
    const charset = value.charset === null ? '' : `; charset=${value.charset}`;
    const headers = [...wire.headers, ...value.headers];
    let body: Buffer | null = null;
    let path = wire.path;
    switch (value.encoding) {
      case 'query':
        path += `${path.includes('?') ? '&' : '?'}${urlencoded(formPairs(value.fields, 'push'))}`;
        break;
      case 'form':
        headers.push(['Content-Type', `application/x-www-form-urlencoded${charset}`]);
        body = encodeText(urlencoded(formPairs(fields, 'push')), value.charset);
        break;
      case 'json':
        headers.push(['Content-Type', `application/json${charset}`]);
        body = encodeText(jsonObject(fields), value.charset);
        break;
      case 'multipart':
        headers.push(['Content-Type', 'multipart/form-data; boundary=fuzzcb']);
        body = multipart('fuzzcb', formPairs(fields, 'push'), [
          { field: 'MediaUrl0', filename: 'a.png', type: 'image/png', content: PNG },
        ]);
        break;
      case 'text':
        headers.push(['Content-Type', `text/plain${charset}`]);
        body = encodeText(
          fields.map(([, item]) => (item.k === 'str' ? item.v : '')).join(' '),
          value.charset,
        );
        break;
      case 'garbage':
        headers.push(['Content-Type', 'application/json']);
        body = Buffer.from([0x7b, 0xff, 0x00, 0xc0, 0xaf]);
        break;
      case 'none':
        break;
    }
    // Callback bodies are read as flat fields of text: `api_key[]`, `api_key[a]` or a JSON list
    // or object under `api_key` is no key there, and the guard reads the next place. An
    // `api_key` among the generated fields is a second key, which makes the key a list: only the
    // guard's own rules say which wins, so such a case checks no key.
    const auth: AuthCase =
      value.auth.form === 'list' || value.auth.form === 'map'
        ? { ...value.auth, form: 'absent' }
        : value.auth;
    const secondKey = value.fields.some(([name]) => name === 'api_key');
    await probe.send(
      { kind: 'http', method: value.method, path, headers, body },
      // A path that cannot be decoded names no route: the key is not read.
      {
        // Headers too large are refused by Node's parser, before any key is read.
        expect: (answer) =>
          decodable(path) && !secondKey && answer.status !== 431
            ? authProblems(auth, answer, true)
            : [],
      },
    );
  },
);

const MEDIA_USERS = ['0', '-1', '1e3', '..', '%2e%2e', '%2F', 'a', '01', '99999999999', '%00'];
const MEDIA_FILES = [
  '..%2F..%2Fsmsgw.sqlite',
  '%2e%2e%2f%2e%2e%2fsmsgw.sqlite',
  '.env',
  'x.png%00.txt',
  'A'.repeat(32) + '.png',
  '0'.repeat(32),
  '0'.repeat(32) + '.html',
  '0'.repeat(32) + '.png.',
  '%20',
  'smsgw.sqlite',
  '..',
  '.',
];

export const mediaRoute: Family = requestFamily('media-route', 3, (world) => {
  const known = world.medias.map((path) => path.split('/'));
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'),
      user: fc.oneof(
        fc.constantFrom(...known.map(([user]) => user), String(world.users.other)),
        fc.constantFrom(...MEDIA_USERS),
      ),
      file: fc.oneof(
        fc.constantFrom(...known.map(([, name]) => name)),
        fc.constantFrom(...MEDIA_FILES),
      ),
      slash: fc.boolean(),
      headers: fc.array(
        fc.tuple(
          fc.constantFrom(
            'Range',
            'If-None-Match',
            'If-Modified-Since',
            'Accept-Encoding',
            'If-Range',
          ),
          fc.constantFrom(
            'bytes=0-0',
            'bytes=-1',
            'bytes=999999-',
            'bytes=0-1,2-3',
            'bytes=abc',
            'bytes=5-1',
            '*',
            'W/"x"',
            'Thu, 01 Jan 2099 00:00:00 GMT',
            'garbage',
            'gzip, br',
          ),
        ),
        { maxLength: 2 },
      ),
    })
    .map(({ method, user, file, slash, headers }): HttpCase => ({
      kind: 'http',
      method,
      path: `/media/${user}/${file}${slash ? '/' : ''}`,
      headers,
      body: null,
    }));
});

/** Names and types of uploads that a browser would run as a page if served back as such. */
const ACTIVE_UPLOADS: Array<[string, string]> = [
  ['x.html', 'text/html'],
  ['x.htm', 'text/html'],
  ['x.HTML', 'text/html'],
  ['x.svg', 'image/svg+xml'],
  ['x.xhtml', 'application/xhtml+xml'],
  ['x.xml', 'text/xml'],
  ['x.js', 'text/javascript'],
  ['x', 'text/html'],
  ['x.png', 'text/html'],
  ['x.shtml', 'text/html'],
  ['x.png', 'image/png'],
  ['x.txt', 'text/plain'],
];

const PAGE = Buffer.from('<html><script>alert(document.domain)</script></html>');

/** Medias uploaded with an MMS, then fetched through the media route: the file, never a page. */
export const mediaUploads: Family = family(
  'media-uploads',
  2,
  () => fc.array(fc.constantFrom(...ACTIVE_UPLOADS), { minLength: 1, maxLength: 3 }),
  async (probe, uploads) => {
    const boundary = 'fuzzmedia';
    const created = await probe.send({
      kind: 'http',
      method: 'POST',
      path: `/api/scheduled/?api_key=${KEYS.main}`,
      headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]],
      body: multipart(
        boundary,
        [
          ['text', 'Look'],
          ['numbers[]', '+33612345678'],
          ['at', '2099-01-01 00:00:00'],
          ['mms', '1'],
        ],
        uploads.map(([filename, type]) => ({
          field: 'medias[]',
          filename,
          type,
          content: type === 'image/png' ? PNG : PAGE,
        })),
      ),
    });
    const read = readEnvelope(created.body);
    if (!('envelope' in read) || read.envelope.error !== 0) {
      probe.fail(
        `the MMS with medias ${uploads.map(([name]) => name).join(', ')} was refused: ${created.body.toString('utf8').slice(0, 300)}`,
      );
      return;
    }
    const listing = await probe.send({
      kind: 'http',
      method: 'GET',
      path: `/api/list/scheduled/after/${Number(read.envelope.response) - 1}/?api_key=${KEYS.main}`,
      headers: [],
      body: null,
    });
    const listed = readEnvelope(listing.body);
    const scheduled =
      'envelope' in listed && Array.isArray(listed.envelope.response)
        ? (listed.envelope.response as Array<{ medias?: Array<{ path?: string }> }>)
        : [];
    const paths = (scheduled[0]?.medias ?? [])
      .map((media) => media.path)
      .filter((path): path is string => typeof path === 'string');
    if (paths.length !== uploads.length) {
      probe.fail(
        `the new message lists ${paths.length} medias for ${uploads.length} uploads: ${listing.body.toString('utf8').slice(0, 300)}`,
      );
    }
    for (const path of paths) {
      await probe.send({
        kind: 'http',
        method: 'GET',
        path: `/media/${path}`,
        headers: [],
        body: null,
      });
    }
  },
);
