import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { PNG } from '../../support/scheduled.factories';
import { readEnvelope } from '../support/checks';
import {
  Entry,
  jsonObject,
  list,
  map,
  multipart,
  num,
  str,
  toJson,
  Value,
} from '../support/params';
import { assemble, Auth } from '../support/requests';
import { family, Family, Probe, requestFamily } from '../support/runner';
import { Answer, HttpCase } from '../support/wire';
import { hostileText, LONE_SURROGATES, PROTO_KEYS, protoNest } from '../support/values';
import { KEYS, World } from '../support/world';
import { TIME_ZONES, TIME_ZONES_REFUSED, WINDOWS, WINDOWS_REFUSED } from './api-values';

/*
 * Bodies: wrong content types and JSON shapes, PHP bracket abuse, malformed encodings, the same
 * key in several places, values just over the documented limits, and ill-formed Unicode in
 * every text parameter.
 */

const KEY_QUERY = `api_key=${KEYS.main}`;

/** Operations with a body, on entries that exist. */
function bodyTargets(world: World): Array<[string, string]> {
  const phone = world.own.phone[0];
  return [
    ['POST', '/api/scheduled/'],
    ['POST', '/api/phone/'],
    ['POST', `/api/phone/${phone}/`],
    ['POST', `/api/phone/${phone}/status/force/`],
    ['POST', `/api/phone/${phone}/status/`],
    ['DELETE', `/api/scheduled/${world.own.scheduled[0]}/`],
  ];
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded; charset=utf-7',
  'APPLICATION/JSON',
  'application/octet-stream',
  '',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unterminated',
  'multipart/mixed; boundary=x',
  'application/json, text/plain',
  'application/json;;;',
  'image/png',
  '*/*',
  'application/json; charset=utf-8; charset=latin1',
];

const VALID_SCHEDULED: Entry[] = [
  ['text', str('Hello')],
  ['numbers', list([str('+33612345678')])],
  ['at', str('2099-01-01 00:00:00')],
];

/** JSON texts that are not an object of parameters, or barely. */
const JSON_TEXTS: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '[]',
    '[1,2]',
    '"text"',
    '1',
    '-0',
    'null',
    'true',
    '',
    ' ',
    '{',
    '{"text":',
    '{"text":"x"',
    '{"text":"a","text":"b","numbers":["+33612345678"]}',
    '{"text":"a","numbers":"+33612345678","numbers":{"0":"+33612345678"}}',
    '{"text":1e999,"numbers":[1e999]}',
    '\ufeff{"text":"bom","numbers":["+33612345678"]}',
    '{"text":"nul\u0000","numbers":["+33612345678"]}',
    '{"text":"x"}garbage',
    '{"text":"x"}{"text":"y"}',
    "{'text':'single quotes'}",
    '{"text":"a",}',
    '{text:"a"}',
    'text=a&numbers[]=%2B33612345678',
  ),
  fc.constantFrom(100, 5000, 100_000).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc
    .constantFrom(100, 5000, 100_000)
    .map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc
    .tuple(fc.constantFrom(...bodyEntryShapes()), protoNest(hostileText.map(str)))
    .map(([entries, nested]) => jsonObject([...entries, [PROTO_KEYS[0], nested]])),
  fc
    .tuple(fc.constantFrom(...PROTO_KEYS), fc.constantFrom(...bodyEntryShapes()), hostileText)
    .map(([key, entries, text]) =>
      jsonObject([
        ...entries.map(([name, value]): Entry => [name, map([[key, value]])]),
        [key, str(text)],
      ]),
    ),
);

function bodyEntryShapes(): Entry[][] {
  return [
    VALID_SCHEDULED,
    [
      ['name', str('proto')],
      ['adapter', str('test')],
      ['adapter_data', map([['__proto__', map([['delivery', str('failed')]])]])],
    ],
    [['status', str('disabled')]],
    [
      [
        'numbers',
        list([
          map([
            ['number', str('+33612345678')],
            ['data', map([['__proto__', map([['polluted', str('yes')]])]])],
          ]),
        ]),
      ],
      ['text', str('x')],
    ],
  ];
}

const ENCODINGS = [
  'gzip',
  'deflate',
  'br',
  'identity',
  'x-gzip',
  'compress',
  'gzip, gzip',
  'bogus',
];

function encodeBody(encoding: string, body: Buffer, corrupt: boolean): Buffer {
  if (corrupt) {
    return body;
  }
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'br':
      return brotliCompressSync(body);
    default:
      return body;
  }
}

/** Ten megabytes of spaces, compressed to a few kilobytes: the body limit applies to what it inflates to. */
const BOMB = gzipSync(
  Buffer.concat([
    Buffer.from('{"text":"'),
    Buffer.alloc(10 * 1024 * 1024, 0x61),
    Buffer.from('"}'),
  ]),
);

export const bodyShapes: Family = requestFamily('body-shapes', 4, (world) =>
  fc
    .record({
      target: fc.constantFrom(...bodyTargets(world)),
      type: fc.option(fc.constantFrom(...CONTENT_TYPES), { freq: 8 }),
      body: fc.oneof(
        JSON_TEXTS.map((text) => Buffer.from(text)),
        fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        fc.constant(Buffer.from(jsonObject(VALID_SCHEDULED), 'utf16le')),
      ),
      encoding: fc.option(fc.tuple(fc.constantFrom(...ENCODINGS), fc.boolean()), { freq: 4 }),
      bomb: fc.boolean(),
    })
    .map(({ target: [method, path], type, body, encoding, bomb }): HttpCase => {
      const headers: Array<[string, string]> = type === null ? [] : [['Content-Type', type]];
      let payload: Buffer = body;
      if (encoding) {
        const [name, corrupt] = encoding;
        headers.push(['Content-Encoding', name]);
        payload = bomb && name === 'gzip' ? BOMB : encodeBody(name, body, corrupt);
      }
      return { kind: 'http', method, path: `${path}?${KEY_QUERY}`, headers, body: payload };
    }),
);

/** Pairs of PHP bracket syntax that naive parsers choke on. */
const BRACKET_ABUSE = [
  'numbers[99999999999]=%2B33612345678',
  'contacts[4294967296]=1',
  'numbers[-1]=%2B33612345678',
  'numbers[1e3]=%2B33612345678',
  'numbers[0x10]=%2B33612345678',
  'numbers=%2B33612345678&numbers[b]=2',
  'numbers[]=%2B33612345678&numbers[a]=2',
  'numbers[0]=%2B33612345678&numbers=2',
  'numbers[0][number]=%2B33612345678&numbers[0]=x',
  'limits[0]=x&limits[0][volume]=1',
  'a[=1',
  'a]=1',
  'a[b=1',
  '[]=1',
  '[a]=1',
  'a[b]c=1',
  'a[][b]=1&a[][c]=2',
  '__proto__[x]=1',
  'a[__proto__][b]=1',
  'constructor[prototype][x]=1',
  'text[constructor][prototype]=1',
  'numbers[__proto__]=%2B33612345678',
  'adapter_data[__proto__][delivery]=failed',
  'text[]=a&text[]=b',
  'text[a]=b',
  '=',
  '&&&',
  '=x',
  'text',
  'text==a',
  'text=a=b',
  'api_key[]=x',
];

/** Over this many parameters the body is refused with HTTP 413 (MAX_PARAMS' default). */
export const MAX_PARAMS = 20_000;

interface BracketCase {
  target: [string, string];
  pairs: string[];
  /** `name[i]=1` pairs past the limit, or not. */
  flood: { name: string; count: number } | null;
}

export const bracketAbuse: Family = family(
  'bracket-abuse',
  4,
  (world) =>
    fc.record({
      target: fc.constantFrom<[string, string]>(
        ['POST', '/api/scheduled/'],
        ['POST', '/api/phone/'],
        ['POST', `/api/phone/${world.own.phone[0]}/`],
      ),
      pairs: fc.array(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...BRACKET_ABUSE) },
          {
            weight: 1,
            arbitrary: fc.integer({ min: 1, max: 300 }).map((depth) => `a${'[]'.repeat(depth)}=1`),
          },
          { weight: 1, arbitrary: fc.constant(`numbers${'[0]'.repeat(5000)}=1`) },
        ),
        { maxLength: 6 },
      ),
      flood: fc.option(
        fc.record({
          name: fc.constantFrom('a', 'numbers', 'limits', 'x[y]'),
          // Well under, or well over, the limit: the boundary itself is the server's to choose.
          count: fc.oneof(
            fc.integer({ min: 1000, max: 12_000 }),
            fc.integer({ min: 25_000, max: 40_000 }),
          ),
        }),
        { freq: 3 },
      ),
    }),
  async (probe, value: BracketCase) => {
    const [method, path] = value.target;
    const pairs = [
      'text=Hello',
      'numbers[]=%2B33612345678',
      'at=2099-01-01%2000:00:00',
      ...value.pairs,
    ];
    if (value.flood) {
      const { name, count } = value.flood;
      // Few recipients: a flood of numbers would make the worker send thousands of messages.
      const flooded = name === 'numbers' ? Math.min(count, 2000) : count;
      for (let i = 0; i < flooded; i++) {
        pairs.push(`${name}[${i}]=1`);
      }
    }
    const count = pairs.length;
    await probe.send(
      {
        kind: 'http',
        method,
        path: `${path}?${KEY_QUERY}`,
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: Buffer.from(pairs.join('&')),
      },
      {
        expect: (answer) =>
          count > MAX_PARAMS + 4000
            ? expectCode(answer, 413, 2, `a body of ${count} parameters (more than ${MAX_PARAMS})`)
            : [],
      },
    );
  },
);

/** The status and error code an answer must have. */
export function expectCode(
  answer: Answer,
  status: number,
  code: number,
  what: string,
  mentions?: string,
): string[] {
  const read = readEnvelope(answer.body);
  const error = 'envelope' in read ? read.envelope.error : undefined;
  const message = 'envelope' in read ? String(read.envelope.message) : '';
  if (answer.status !== status || error !== code) {
    return [
      `${what}: expected HTTP ${status} with error ${code}, got HTTP ${answer.status} with error ${String(error)} (${message})`,
    ];
  }
  if (mentions && !message.includes(mentions)) {
    return [`${what}: the message does not name ${mentions}: ${message}`];
  }
  return [];
}

const BAD_ESCAPES = [
  '%',
  '%zz',
  '%E9',
  '%C0%AF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%FE%FF',
  '%00',
  '%2',
  '%%41',
  '%u0041',
  '%C3',
  '%E2%82',
];
const RAW_BYTES = [
  [0xc0, 0xaf],
  [0xff],
  [0xed, 0xa0, 0x80],
  [0xe9],
  [0xf0, 0x9f, 0x98],
  [0x00],
  [0xef, 0xbb, 0xbf],
];

export const encodings: Family = requestFamily('encodings', 4, (world) => {
  const phone = world.own.phone[0];
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom(
          `/api/phone/{x}/`,
          `/api/list/{x}/`,
          `/api/list/phone/{x}/`,
          `/api/{x}/list/phone/`,
          `/api/scheduled/{x}/`,
          `/callback/status/{x}/`,
          `/media/{x}/{x}`,
        ),
        fc.constantFrom(...BAD_ESCAPES),
        fc.constantFrom('GET', 'POST', 'DELETE'),
      )
      .map(([template, escape, method]): HttpCase => ({
        kind: 'http',
        method,
        path: `${template.replace(/\{x\}/g, escape)}?${KEY_QUERY}`,
        headers: [],
        body: null,
      })),
    fc
      .tuple(
        fc.constantFrom('tag', 'start', 'api_key', 'page', 'to', 'text', 'x', '%zz', 'tag%5B%5D'),
        fc.constantFrom(...BAD_ESCAPES),
        fc.constantFrom(
          '/api/usage/',
          '/api/send-sms/',
          '/api/list/phone/',
          '/api/stats/sms-status/',
        ),
      )
      .map(([name, escape, path]): HttpCase => ({
        kind: 'http',
        method: 'GET',
        path: `${path}?${KEY_QUERY}&${name}=${escape}&text=a&to=%2B33612345678`,
        headers: [],
        body: null,
      })),
    fc
      .tuple(
        fc.constantFrom('text', 'tag', 'numbers[]', 'name', 'adapter', 'api_key', 'status'),
        fc.oneof(
          fc.constantFrom(...BAD_ESCAPES).map((escape) => Buffer.from(escape)),
          fc.constantFrom(...RAW_BYTES).map((bytes) => Buffer.from(bytes)),
        ),
        fc.constantFrom(
          `/api/scheduled/`,
          `/api/phone/`,
          `/api/phone/${phone}/`,
          `/api/phone/${phone}/status/force/`,
        ),
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=utf-8',
          'application/x-www-form-urlencoded; charset=latin1',
          'application/x-www-form-urlencoded; charset=koi8-r',
          'application/x-www-form-urlencoded; charset=bogus',
          'application/x-www-form-urlencoded; charset="utf-8"',
        ),
      )
      .map(([name, bad, path, type]): HttpCase => ({
        kind: 'http',
        method: 'POST',
        path: `${path}?${KEY_QUERY}`,
        headers: [['Content-Type', type]],
        body: Buffer.concat([
          Buffer.from(`text=Hi&numbers[]=%2B33612345678&at=2099-01-01+00:00:00&${name}=a`),
          bad,
          Buffer.from('b'),
        ]),
      })),
    fc
      .tuple(
        fc.constantFrom('text', 'tag', 'name', 'status', 'api_key'),
        fc.constantFrom(...RAW_BYTES).map((bytes) => Buffer.from(bytes)),
        fc.constantFrom(`/api/scheduled/`, `/api/phone/`, `/api/phone/${phone}/status/force/`),
        fc.constantFrom(
          'application/json',
          'application/json; charset=latin1',
          'application/json; charset=utf-16le',
          'application/json; charset=bogus',
        ),
      )
      .map(([name, bad, path, type]): HttpCase => ({
        kind: 'http',
        method: 'POST',
        path: `${path}?${KEY_QUERY}`,
        headers: [['Content-Type', type]],
        body: Buffer.concat([
          Buffer.from(
            `{"numbers":["+33612345678"],"at":"2099-01-01 00:00:00","adapter":"test","${name}":"a`,
          ),
          bad,
          Buffer.from('b"}'),
        ]),
      })),
  );
});

interface DuplicateCase {
  target: [string, string];
  name: string;
  values: Value[];
  places: Array<'query' | 'body' | 'header'>;
  encoding: 'form' | 'json' | 'multipart';
}

export const duplicateKeys: Family = family(
  'duplicate-keys',
  3,
  (world) => {
    const phone = world.own.phone;
    return fc.record({
      // Deletions only of a scheduled message: the phones are other families' too.
      target: fc.constantFrom<[string, string]>(
        ['POST', '/api/scheduled/'],
        ['POST', `/api/phone/${phone[0]}/`],
        ['POST', `/api/phone/${phone[1]}/status/force/`],
        ['DELETE', `/api/scheduled/${world.own.scheduled[0]}/`],
        ['POST', '/api/phone/'],
      ),
      name: fc.constantFrom(
        'text',
        'numbers',
        'id',
        'status',
        'api_key',
        'at',
        'name',
        'adapter',
        'mms',
        'id_phone',
      ),
      values: fc.array(
        fc.oneof(
          fc.constantFrom<Value>(
            str('Hello'),
            str('+33612345678'),
            str(String(phone[0])),
            str(String(world.foreign.phone[0])),
            str('disabled'),
            str('2099-01-01 00:00:00'),
            str('1'),
            list([str('a')]),
            map([['b', str('c')]]),
          ),
          hostileText.map(str),
        ),
        { minLength: 2, maxLength: 4 },
      ),
      places: fc.array(
        fc.constantFrom<'query' | 'body' | 'header'>('query', 'body', 'body', 'header'),
        { minLength: 2, maxLength: 4 },
      ),
      encoding: fc.constantFrom<'form' | 'json' | 'multipart'>('form', 'json', 'multipart'),
    });
  },
  async (probe, value: DuplicateCase) => {
    // Keys go only where keys are read: a key put in another parameter is logged as a value.
    const values =
      value.name === 'api_key'
        ? [str(KEYS.main), str(KEYS.suspended), ...value.values]
        : value.values;
    const query: Entry[] = [];
    const body: Entry[] = [
      ...VALID_SCHEDULED,
      ['name', str('dup')],
      ['adapter', str('test')],
      ['status', str('available')],
    ].filter(([name]) => name !== value.name) as Entry[];
    const headers: Array<[string, string]> = [];
    value.places.forEach((place, index) => {
      const item = values[index % values.length];
      if (place === 'query') {
        query.push([value.name, item]);
      } else if (place === 'header') {
        headers.push([
          value.name === 'api_key' ? 'X-Api-Key' : `X-${value.name}`,
          item.k === 'str' ? item.v.replace(/[^\t\x20-\x7e]/g, '') : toJson(item),
        ]);
      } else {
        body.push([value.name, item]);
      }
    });
    const auth: Auth = value.name === 'api_key' ? {} : { query: KEYS.main };
    const [method, path] = value.target;
    await probe.send(
      assemble({
        method,
        path,
        query,
        body,
        encoding: value.encoding,
        listStyle: 'indexed',
        auth,
        headers,
      }),
    );
  },
);

/** Stands for the id of a phone made for the case, in paths. */
const FRESH_PHONE = '{fresh-phone}';
/** Stands for ten characters unique to the case, in bodies: phone names must be unique. */
const UNIQUE = '{unique-0}';
let uniques = 0;

function unique(): string {
  uniques += 1;
  return `u${uniques.toString(36).padStart(9, '0')}`;
}

/**
 * The request with its placeholders filled: UNIQUE by a new token, FRESH_PHONE by the id of a
 * test phone made for it (null if that failed).
 */
async function withFreshPhone(probe: Probe, template: HttpCase): Promise<HttpCase | null> {
  const body =
    template.body &&
    Buffer.from(template.body.toString('latin1').split(UNIQUE).join(unique()), 'latin1');
  const wire = { ...template, body };
  if (!wire.path.includes(FRESH_PHONE)) {
    return wire;
  }
  const created = await probe.send(
    assemble({
      method: 'POST',
      path: '/api/phone/',
      query: [],
      body: [
        ['name', str(`fresh ${unique()}`)],
        ['adapter', str('test')],
      ],
      encoding: 'json',
      listStyle: 'indexed',
      auth: { query: KEYS.main },
    }),
    { expect: (answer) => expectCode(answer, 201, 0, 'a new test phone') },
  );
  const read = readEnvelope(created.body);
  if (!('envelope' in read) || typeof read.envelope.response !== 'number') {
    return null;
  }
  return { ...wire, path: wire.path.replace(FRESH_PHONE, String(read.envelope.response)) };
}

interface LimitCase {
  what: string;
  wire: HttpCase;
  status: number;
  code: number;
  mentions?: string;
  /** A setting the answer must list with this value, as it is stored. */
  stored?: [name: string, value: string];
}

const MIB = 1024 * 1024;

function scheduledWith(entries: Entry[], encoding: 'form' | 'json' = 'form'): HttpCase {
  return assemble({
    method: 'POST',
    path: '/api/scheduled/',
    query: [],
    // The entries replace the valid ones of the same name: a name given twice is a list.
    body: [
      ...VALID_SCHEDULED.filter(([name]) => !entries.some(([other]) => other === name)),
      ...entries,
    ],
    encoding,
    listStyle: 'indexed',
    auth: { query: KEYS.main },
  });
}

function scheduledMultipart(
  fields: Array<[string, string]>,
  files: Array<{ field: string; size: number }>,
): HttpCase {
  const boundary = 'fuzzlimitboundary';
  return {
    kind: 'http',
    method: 'POST',
    path: `/api/scheduled/?${KEY_QUERY}`,
    headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]],
    body: multipart(
      boundary,
      [
        ['text', 'Hello'],
        ['numbers[]', '+33612345678'],
        ['at', '2099-01-01 00:00:00'],
        ['mms', '1'],
        ...fields,
      ],
      files.map(({ field, size }) => ({
        field,
        filename: 'big.png',
        type: 'image/png',
        content: Buffer.concat([PNG, Buffer.alloc(Math.max(0, size - PNG.length))]),
      })),
    ),
  };
}

function csvOfRows(rows: number): Buffer {
  return Buffer.from(`number\n${'+33612345678\n'.repeat(rows)}`);
}

/** A value for a message's window, and whether the parameter takes it. */
function windowCases(): Array<[Value, boolean]> {
  const taken = ['none', 'NONE', ' None ', '', ...WINDOWS];
  return [
    ...taken.map((text): [Value, boolean] => [str(text), true]),
    ...WINDOWS_REFUSED.map((text): [Value, boolean] => [str(text), false]),
    ...[
      num(8),
      list([str('08:00-20:00')]),
      map([
        ['from', str('08:00')],
        ['to', str('20:00')],
      ]),
    ].map((value): [Value, boolean] => [value, false]),
  ];
}

/**
 * A value of the send_window or timezone setting, and how it is stored: undefined when taken
 * in a spelling of the runtime's (a renamed zone may be stored by its other name), null when
 * refused. `none` is the window parameter's only: the setting is empty for any time.
 */
function settingCases(): Array<{ name: string; value: string; stored?: string | null }> {
  const spelt: Record<string, string> = {
    'europe/paris': 'Europe/Paris',
    utc: 'UTC',
    'america/new_york': 'America/New_York',
  };
  return [
    ...['', ...WINDOWS].map((value) => ({ name: 'send_window', value, stored: value })),
    ...['none', ' ', ...WINDOWS_REFUSED].map((value) => ({
      name: 'send_window',
      value,
      stored: null,
    })),
    ...TIME_ZONES.map((value) => ({
      name: 'timezone',
      value,
      stored: value === '' ? '' : spelt[value.toLowerCase()],
    })),
    ...TIME_ZONES_REFUSED.map((value) => ({ name: 'timezone', value, stored: null })),
  ];
}

/** A value in a case's name, a long one shortened. */
function shortJson(value: Value): string {
  const json = toJson(value);
  return json.length > 60 ? `${json.slice(0, 60)}… (${json.length} characters)` : json;
}

/** One documented limit, at it or just past it, with the answer each must get. */
function limitCases(): Array<fc.Arbitrary<LimitCase>> {
  // Replaced by a phone made for the case: other families change and delete theirs.
  const phone = FRESH_PHONE;
  const over = (
    what: string,
    wire: HttpCase,
    status: number,
    code: number,
    mentions?: string,
    stored?: [string, string],
  ): LimitCase => ({ what, wire, status, code, mentions, stored });
  return [
    fc
      .constantFrom(1000, 1001)
      .chain((length) =>
        fc
          .constantFrom('a', '😀', 'é')
          .map((unit) =>
            length > 1000
              ? over(
                  `a text of ${length} characters`,
                  scheduledWith([['text', str(unit.repeat(length))]]),
                  400,
                  2,
                  'text',
                )
              : over(
                  `a text of ${length} characters`,
                  scheduledWith([['text', str(unit.repeat(length))]]),
                  201,
                  0,
                ),
          ),
      ),
    fc
      .constantFrom(1000, 1001)
      .map((length) =>
        over(
          `a tag of ${length} characters`,
          scheduledWith([['tag', str('t'.repeat(length))]]),
          length > 1000 ? 400 : 201,
          length > 1000 ? 2 : 0,
          length > 1000 ? 'tag' : undefined,
        ),
      ),
    fc.constantFrom('high', 'normal', ' High ', '', 'urgent', '1', 'highest').map((priority) => {
      const taken = ['high', 'normal', ''].includes(priority.trim().toLowerCase());
      return over(
        `a priority of ${JSON.stringify(priority)}`,
        scheduledWith([['priority', str(priority)]]),
        taken ? 201 : 400,
        taken ? 0 : 2,
        taken ? undefined : 'priority',
      );
    }),
    fc
      .tuple(fc.constantFrom(...windowCases()), fc.constantFrom<'form' | 'json'>('form', 'json'))
      .map(([[window, taken], encoding]) =>
        over(
          `a window of ${shortJson(window)} in a ${encoding} body`,
          scheduledWith([['window', window]], encoding),
          taken ? 201 : 400,
          taken ? 0 : 2,
          taken ? undefined : 'window',
        ),
      ),
    fc.constantFrom(...windowCases()).map(([window, taken]) =>
      over(
        `get_send_sms with a window of ${shortJson(window)}`,
        assemble({
          method: 'GET',
          path: '/api/send-sms',
          query: [
            ['to', str('+33612345678')],
            ['text', str('Hello')],
            ['window', window],
          ],
          body: [],
          encoding: 'none',
          listStyle: 'indexed',
          auth: { query: KEYS.main },
        }),
        taken ? 200 : 400,
        taken ? 0 : 2,
        taken ? undefined : 'window',
      ),
    ),
    fc
      .tuple(fc.constantFrom(...settingCases()), fc.constantFrom<'form' | 'json'>('form', 'json'))
      .map(([{ name, value, stored }, encoding]) =>
        over(
          `${name} set to ${shortJson(str(value))} in a ${encoding} body`,
          assemble({
            method: 'POST',
            path: '/api/setting/',
            query: [],
            body: [[name, str(value)]],
            encoding,
            listStyle: 'indexed',
            auth: { query: KEYS.main },
          }),
          stored === null ? 400 : 200,
          stored === null ? 2 : 0,
          stored === null ? name : undefined,
          stored === null || stored === undefined ? undefined : [name, stored],
        ),
      ),
    fc
      .constantFrom('', 'phone', 'recipient', 'PHONE', ' phone', 'both', 'recipients')
      .map((refusal) => {
        const taken = ['', 'phone', 'recipient'].includes(refusal);
        return over(
          `a test phone whose refusal is ${JSON.stringify(refusal)}`,
          assemble({
            method: 'POST',
            path: '/api/phone/',
            query: [],
            body: [
              ['name', str(`refusal ${UNIQUE}`)],
              ['adapter', str('test')],
              ['adapter_data', map([['refusal', str(refusal)]])],
            ],
            encoding: 'json',
            listStyle: 'indexed',
            auth: { query: KEYS.main },
          }),
          // The adapter's own check of its data refuses the creation (README, post_phone).
          taken ? 201 : 422,
          taken ? 0 : 8,
          taken ? undefined : 'refusal',
        );
      }),
    fc.constantFrom(150, 151).map((length) =>
      over(
        `a phone name of ${length} characters`,
        assemble({
          method: 'POST',
          path: '/api/phone/',
          query: [],
          body: [
            ['name', str(UNIQUE + 'n'.repeat(length - UNIQUE.length))],
            ['adapter', str('test')],
          ],
          encoding: 'json',
          listStyle: 'indexed',
          auth: { query: KEYS.main },
        }),
        length > 150 ? 400 : 201,
        length > 150 ? 2 : 0,
        length > 150 ? 'name' : undefined,
      ),
    ),
    fc.constantFrom(100, 101).map((count) =>
      over(
        `${count} limits`,
        assemble({
          method: 'POST',
          path: `/api/phone/${phone}/`,
          query: [],
          body: [
            [
              'limits',
              list(
                Array.from({ length: count }, () =>
                  map([
                    ['volume', num(5)],
                    ['startpoint', str('today')],
                  ]),
                ),
              ),
            ],
          ],
          encoding: 'json',
          listStyle: 'indexed',
          auth: { query: KEYS.main },
        }),
        count > 100 ? 400 : 200,
        count > 100 ? 2 : 0,
        count > 100 ? 'limits' : undefined,
      ),
    ),
    fc.constant(
      over(
        'adapter_data of more than 65,535 bytes',
        assemble({
          method: 'POST',
          path: `/api/phone/${phone}/`,
          query: [],
          body: [
            ['adapter', str('test')],
            ['adapter_data', map([['delivery', str('d'.repeat(70_000))]])],
          ],
          encoding: 'json',
          listStyle: 'indexed',
          auth: { query: KEYS.main },
        }),
        400,
        2,
        'adapter_data',
      ),
    ),
    fc.constantFrom('form', 'json').map((kind) => {
      const padding = 'p'.repeat(MIB);
      const wire =
        kind === 'form'
          ? scheduledWith([['tag', str(padding)]])
          : assemble({
              method: 'POST',
              path: '/api/scheduled/',
              query: [],
              body: [...VALID_SCHEDULED, ['tag', str(padding)]],
              encoding: 'json',
              listStyle: 'indexed',
              auth: { query: KEYS.main },
            });
      return over(`a ${kind} body over MAX_BODY_BYTES`, wire, 413, 2);
    }),
    fc.constant(
      over(
        'a multipart field over MAX_BODY_BYTES',
        scheduledMultipart([['tag', 'p'.repeat(MIB + 1)]], []),
        413,
        2,
      ),
    ),
    fc
      .constantFrom(10 * MIB, 10 * MIB + 1)
      .map((size) =>
        over(
          `a media of ${size} bytes`,
          scheduledMultipart([], [{ field: 'medias[]', size }]),
          size > 10 * MIB ? 413 : 201,
          size > 10 * MIB ? 64 : 0,
        ),
      ),
    fc.constant(
      over(
        '12 files',
        scheduledMultipart(
          [],
          Array.from({ length: 12 }, () => ({ field: 'medias[]', size: 100 })),
        ),
        413,
        64,
      ),
    ),
    fc.constant(
      over(
        'a numbers_csv of 200,001 rows',
        (() => {
          const boundary = 'fuzzcsvrows';
          return {
            kind: 'http' as const,
            method: 'POST',
            path: `/api/scheduled/?${KEY_QUERY}`,
            headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`]] as Array<
              [string, string]
            >,
            body: multipart(
              boundary,
              [
                ['text', 'Hi'],
                ['at', '2099-01-01 00:00:00'],
              ],
              [
                {
                  field: 'numbers_csv',
                  filename: 'n.csv',
                  type: 'text/csv',
                  content: csvOfRows(200_001),
                },
              ],
            ),
          };
        })(),
        413,
        64,
      ),
    ),
  ];
}

export const limits: Family = family(
  'limits',
  1,
  () => fc.oneof(...limitCases()),
  async (probe, value: LimitCase) => {
    const wire = await withFreshPhone(probe, value.wire);
    if (!wire) {
      return;
    }
    await probe.send(wire, {
      expect: (answer) => {
        const problems = expectCode(answer, value.status, value.code, value.what, value.mentions);
        return problems.length || !value.stored ? problems : expectStored(answer, value);
      },
    });
  },
);

/** post_setting's answer lists every setting: the one changed as it is stored. */
function expectStored(answer: Answer, { what, stored }: LimitCase): string[] {
  const read = readEnvelope(answer.body);
  const response = 'envelope' in read ? read.envelope.response : undefined;
  const [name, value] = stored!;
  const found =
    typeof response === 'object' && response !== null
      ? (response as Record<string, unknown>)[name]
      : undefined;
  return found === value
    ? []
    : [`${what}: ${name} is stored as ${JSON.stringify(found)}, not ${JSON.stringify(value)}`];
}

/** A request that would succeed, and a text field of it to make ill-formed. */
interface TextField {
  path: string;
  body: Entry[];
  /** Where the ill-formed text goes: a top-level name, or `adapter_data.<field>`. */
  field: string;
}

function textFields(world: World): TextField[] {
  const { providers } = world;
  const phone = FRESH_PHONE;
  const fields: TextField[] = [];
  const scheduled: Entry[] = [
    ...VALID_SCHEDULED,
    ['tag', str('campaign')],
    ['window', str('08:00-20:00')],
  ];
  for (const field of ['text', 'tag', 'at', 'window', 'numbers.data']) {
    fields.push({ path: '/api/scheduled/', body: scheduled, field });
  }
  for (const [field, value] of [
    ['send_window', '08:00-20:00'],
    ['timezone', 'Europe/Paris'],
  ]) {
    fields.push({ path: '/api/setting/', body: [[field, str(value)]], field });
  }
  const adapters: Record<string, Record<string, string>> = {
    test: { delivery: 'delivered', phone_status: 'available', refusal: '' },
    twilio: {
      account_sid: 'ACfuzz',
      auth_token: 'SeKrEt0000000000000b',
      number: '+14155552671',
      status_change_callback: `http://127.0.0.1:${providers.closedPort}/status`,
    },
    kannel: {
      kannel_sendsms_url: `http://127.0.0.1:${providers.fakePort}/cgi-bin/sendsms`,
      username: 'fuzz',
      password: 'SeKrEt0000000000000c',
      from: '+33612345678',
      smsc: 'smsc',
      dlr_url: `http://127.0.0.1:${providers.closedPort}/dlr`,
    },
    ovh_virtual_number: { ...providers.ovhData, number: '+33612345678' },
    ovh_shortcode: { ...providers.ovhData, sender: 'SMSGW' },
    gammu: { config_file: '/nonexistent/gammurc', pin: '1234' },
    smpp: {
      host: '127.0.0.1',
      port: String(providers.closedPort),
      system_id: 'fuzz',
      // SMPP 3.4 passwords have at most 8 characters.
      password: 'pw345678',
      system_type: 'x',
      source_addr: 'SMSGW',
    },
  };
  for (const [adapter, data] of Object.entries(adapters)) {
    const body: Entry[] = [
      ['name', str(`text ${adapter}`)],
      ['adapter', str(adapter)],
      ['adapter_data', map(Object.entries(data).map(([name, text]): Entry => [name, str(text)]))],
    ];
    // Not the SMPP host: any text that is not an address is looked up in the DNS, off this machine.
    const texts = Object.keys(data).filter((field) => !(adapter === 'smpp' && field === 'host'));
    for (const name of ['name', ...texts.map((field) => `adapter_data.${field}`)]) {
      fields.push({ path: '/api/phone/', body, field: name });
      fields.push({ path: `/api/phone/${phone}/`, body, field: name });
    }
  }
  fields.push({
    path: '/api/phone/',
    body: [
      ['name', str('text adapter')],
      ['adapter', str('test')],
    ],
    field: 'adapter',
  });
  fields.push({
    path: `/api/phone/${phone}/status/force/`,
    body: [['status', str('available')]],
    field: 'status',
  });
  return fields;
}

/** The request with `text` in place of the field (inside a recipient's data for `numbers.data`). */
function withText(field: TextField, text: string): Entry[] {
  // Phone names are unique per user: each case gets its own.
  const body = field.body.map(([key, item]): Entry => [
    key,
    key === 'name' ? str(`text ${UNIQUE}`) : item,
  ]);
  if (field.field === 'numbers.data') {
    const data = str(JSON.stringify({ firstname: text }));
    return body.map(([key, item]): Entry => [
      key,
      key === 'numbers'
        ? list([
            map([
              ['number', str('+33612345678')],
              ['data', data],
            ]),
          ])
        : item,
    ]);
  }
  if (field.field.startsWith('adapter_data.')) {
    const name = field.field.slice('adapter_data.'.length);
    return body.map(([key, item]): Entry => [
      key,
      key === 'adapter_data' && item.k === 'map'
        ? map(
            item.entries.map(([inner, value]): Entry => [
              inner,
              inner === name ? str(text) : value,
            ]),
          )
        : item,
    ]);
  }
  return body.map(([key, item]): Entry => [key, key === field.field ? str(text) : item]);
}

/**
 * Text parameters must be well-formed Unicode: a lone surrogate (which only JSON can carry) is
 * INVALID_PARAMETER naming the field, never stored, never a 500.
 */
export const wellFormedText: Family = family(
  'well-formed-text',
  3,
  (world) =>
    fc.record({
      field: fc.constantFrom(...textFields(world)),
      text: fc
        .tuple(
          fc.constantFrom('', 'x', 'Hello '),
          fc.constantFrom(...LONE_SURROGATES),
          fc.constantFrom('', 'y'),
        )
        .map(([before, lone, after]) => before + lone + after),
    }),
  async (probe, { field, text }) => {
    const body = withText(field, text);
    const wire = assemble({
      method: 'POST',
      path: field.path,
      query: [],
      body,
      encoding: 'json',
      listStyle: 'indexed',
      auth: { query: KEYS.main },
    });
    const ready = await withFreshPhone(probe, wire);
    if (!ready) {
      return;
    }
    const name = field.field.replace(/^adapter_data\./, '').replace(/^numbers\.data$/, 'numbers');
    await probe.send(ready, {
      expect: (answer) => expectCode(answer, 400, 2, `a lone surrogate in ${field.field}`, name),
    });
  },
);
