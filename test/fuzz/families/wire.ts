import fc from 'fast-check';
import { PNG } from '../../support/scheduled.factories';
import { multipart } from '../support/params';
import { requestFamily, Family, family } from '../support/runner';
import { RawCase } from '../support/wire';
import { KEYS } from '../support/world';
import { expectCode } from './bodies';

/*
 * Bytes no HTTP client writes, on raw sockets: broken request lines, methods, versions and
 * headers, malformed chunked bodies, oversized headers, requests without Host or with an
 * Expect the server cannot meet, and clients that go away mid-request. Node's HTTP parser
 * rejects most of these before the app sees them; the answer must still be the envelope.
 */

const PATH = `/api/list/phone/?api_key=${KEYS.main}`;
const POST_PATH = `/api/scheduled/?api_key=${KEYS.main}`;
const FORM = 'text=Hello&numbers[]=%2B33612345678&at=2099-01-01+00:00:00';

const raw = (
  text: string | Buffer,
  ending: RawCase['ending'] = 'answer',
  mustAnswer = true,
): RawCase => ({
  kind: 'raw',
  bytes: Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'),
  ending,
  mustAnswer,
});

const METHODS = [
  'GET',
  'get',
  'G ET',
  'FOO',
  'GET\u0000',
  '',
  'PRI',
  'GÉT',
  'GETGETGETGETGETGETGETGETGETGETGETGETGETGETGETGET',
  'POST',
  'HEAD',
  'CONNECT',
  '\u0016\u0003\u0001',
];
const TARGETS = [
  PATH,
  '*',
  `http://127.0.0.1${PATH}`,
  '',
  'api/list/phone/',
  '/api/list/phone/ x',
  '/\u007f',
  '/%',
  '/\u0000',
  `${PATH}#frag`,
  '/api/list/phone/\u00e9',
];
const VERSIONS = [
  'HTTP/1.1',
  'HTTP/1.0',
  'HTTP/2.0',
  'HTTP/1.2',
  'HTTP/9.9',
  'HTTPS/1.1',
  'http/1.1',
  '',
  'HTTP/1.1 extra',
  'HTTP/1',
  'HTTP/01.1',
];

export const rawRequestLine: Family = requestFamily('raw-request-line', 3, () =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      target: fc.constantFrom(...TARGETS),
      version: fc.constantFrom(...VERSIONS),
      separator: fc.constantFrom(' ', ' ', '  ', '\t'),
      ending: fc.constantFrom('\r\n', '\r\n', '\n', '\r'),
    })
    .map(({ method, target, version, separator, ending }) => {
      const line = [method, target, version].join(separator);
      // CONNECT asks for a tunnel, which a server without one may refuse by closing.
      return raw(
        `${line}${ending}Host: 127.0.0.1${ending}Connection: close${ending}${ending}`,
        'answer',
        method !== 'CONNECT',
      );
    }),
);

const HEADER_LINES = [
  'Bad Header: x',
  ' Leading-Space: x',
  'NoColon',
  'X-A:\u0000',
  'X-A: \u007f',
  'X-A: a\r\n continued',
  'X-A: é',
  ': empty-name',
  'Content-Length: -1',
  'Content-Length: abc',
  'Content-Length: 1, 2',
  'Content-Length: 99999999999999999999',
  'Content-Length: +5',
  'Content-Length: 0x10',
  'Transfer-Encoding: gzip',
  'Transfer-Encoding: chunked, chunked',
  'Transfer-Encoding: identity',
  'Transfer-Encoding: chunked\r\nContent-Length: 5',
  'Content-Length: 5\r\nContent-Length: 6',
  'Host: a\r\nHost: b',
  'Expect: 100-continue',
  'Connection: upgrade\r\nUpgrade: websocket',
  'Connection: upgrade\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__',
  'Content-Type: application/x-www-form-urlencoded\u0000',
  'X-Api-Key: ' + KEYS.suspended,
];

export const rawHeaders: Family = requestFamily('raw-headers', 4, () =>
  fc
    .record({
      lines: fc.array(fc.constantFrom(...HEADER_LINES), { minLength: 1, maxLength: 3 }),
      lf: fc.boolean(),
    })
    .map(({ lines, lf }) => {
      const eol = lf ? '\n' : '\r\n';
      const head = [
        `POST ${POST_PATH} HTTP/1.1`,
        'Host: 127.0.0.1',
        'Content-Type: application/x-www-form-urlencoded',
        ...lines,
        `Content-Length: ${FORM.length}`,
        'Connection: close',
      ];
      return raw(`${head.join(eol)}${eol}${eol}${FORM}`);
    }),
);

const CHUNKED_BODIES = [
  'zz\r\nabc\r\n0\r\n\r\n',
  '5\r\nabc\r\n0\r\n\r\n',
  '3;ext=\u0000\r\nabc\r\n0\r\n\r\n',
  'fffffffffffffffffff\r\nabc\r\n0\r\n\r\n',
  '-1\r\nabc\r\n0\r\n\r\n',
  '3 \r\nabc\r\n0\r\n\r\n',
  '3\nabc\n0\n\n',
  '3\r\nabcXX0\r\n\r\n',
  '0\r\nTrailer: x\r\n\r\n',
  '0\r\nContent-Length: 5\r\n\r\n',
  '3\r\nabc\r\n0\r\n',
  '\r\n',
  '0x3\r\nabc\r\n0\r\n\r\n',
  '3;' + 'e'.repeat(20_000) + '\r\nabc\r\n0\r\n\r\n',
];

export const rawChunked: Family = requestFamily('raw-chunked', 3, () =>
  fc
    .record({ chunks: fc.constantFrom(...CHUNKED_BODIES), prefix: fc.boolean() })
    .map(({ chunks, prefix }) => {
      const valid = prefix ? `${FORM.length.toString(16)}\r\n${FORM}\r\n` : '';
      return raw(
        `POST ${POST_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${valid}${chunks}`,
      );
    }),
);

/** Node's default limit on the request head (16 KiB): past it, HTTP 431. */
const MAX_HEADER_BYTES = 16 * 1024;

interface HeaderSizeCase {
  shape: 'one-header' | 'many-headers' | 'long-url' | 'cookie';
  bytes: number;
}

export const headerSize: Family = family(
  'header-size',
  2,
  () =>
    fc.record({
      shape: fc.constantFrom<HeaderSizeCase['shape']>(
        'one-header',
        'many-headers',
        'long-url',
        'cookie',
      ),
      // Well under or well over the limit: just around it depends on the request line.
      bytes: fc.oneof(
        fc.integer({ min: 1000, max: 12_000 }),
        fc.integer({ min: 20_000, max: 200_000 }),
      ),
    }),
  async (probe, { shape, bytes }) => {
    let target = PATH;
    const headers = ['Host: 127.0.0.1', 'Connection: close'];
    switch (shape) {
      case 'one-header':
        headers.push(`X-Big: ${'b'.repeat(bytes)}`);
        break;
      case 'many-headers':
        for (let i = 0; i * 20 < bytes; i++) {
          headers.push(`X-Header-${i}: ${'v'.repeat(8)}`);
        }
        break;
      case 'long-url':
        target = `${PATH}&tag=${'u'.repeat(bytes)}`;
        break;
      case 'cookie':
        headers.push(`Cookie: ${'c=1; '.repeat(Math.ceil(bytes / 5))}`);
        break;
    }
    const head = `GET ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`;
    await probe.send(raw(head), {
      expect: (answer) =>
        head.length > MAX_HEADER_BYTES
          ? expectCode(answer, 431, 2, `a request head of ${head.length} bytes`)
          : [],
    });
  },
);

/** HTTP/1.1 requires a Host header; Node refuses a request without one itself. */
export const noHost: Family = requestFamily('no-host', 2, () =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.constant('') },
      fc.constantFrom(
        'Host: \r\n',
        'Host: a\r\nHost: b\r\n',
        'Host: a b\r\n',
        'Host: [::1\r\n',
        'Host: \u00e9\r\n',
        'Host: 127.0.0.1:99999\r\n',
        'Host: localhost\r\n',
      ),
    )
    .map((host) => raw(`GET ${PATH} HTTP/1.1\r\n${host}Connection: close\r\n\r\n`)),
);

/** An Expect other than 100-continue is refused with 417 by Node unless the app takes it. */
export const expectHeader: Family = requestFamily('expect-header', 2, () =>
  fc
    .record({
      expect: fc.constantFrom('100-continue', '100-Continue', 'something', '', '200-ok'),
      method: fc.constantFrom('GET', 'POST'),
    })
    .map(({ expect, method }) =>
      raw(
        method === 'GET'
          ? `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: ${expect}\r\nConnection: close\r\n\r\n`
          : `POST ${POST_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: ${expect}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${FORM.length}\r\nConnection: close\r\n\r\n${FORM}`,
      ),
    ),
);

/** Whole requests of each kind, to be cut short by a client that goes away. */
function wholeRequests(): Buffer[] {
  const boundary = 'fuzzhangup';
  const upload = multipart(
    boundary,
    [
      ['text', 'Hello'],
      ['numbers[]', '+33612345678'],
      ['at', '2099-01-01 00:00:00'],
      ['mms', '1'],
    ],
    [
      {
        field: 'medias[]',
        filename: 'a.png',
        type: 'image/png',
        content: Buffer.concat([PNG, Buffer.alloc(200_000, 1)]),
      },
      {
        field: 'numbers_csv',
        filename: 'n.csv',
        type: 'text/csv',
        content: Buffer.from('number\n+33612345678\n'.repeat(1000)),
      },
    ],
  );
  const head = (type: string, length: number, extra = '') =>
    `POST ${POST_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n${extra}\r\n`;
  const json = '{"text":"Hello","numbers":["+33612345678"],"at":"2099-01-01 00:00:00"}';
  return [
    Buffer.concat([
      Buffer.from(head(`multipart/form-data; boundary=${boundary}`, upload.length)),
      upload,
    ]),
    Buffer.concat([
      Buffer.from(
        head(
          `multipart/form-data; boundary=${boundary}`,
          upload.length,
          'Expect: 100-continue\r\n',
        ),
      ),
      upload,
    ]),
    Buffer.from(head('application/x-www-form-urlencoded', FORM.length) + FORM),
    Buffer.from(head('application/json', json.length) + json),
    Buffer.from(
      `POST ${POST_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${upload.length.toString(16)}\r\n${upload.toString('latin1')}\r\n0\r\n\r\n`,
      'latin1',
    ),
  ];
}

/** Clients that hang up (FIN) or reset (RST) anywhere in a request, uploads included. */
export const hangUps: Family = requestFamily('hang-ups', 4, () =>
  fc
    .record({
      request: fc.constantFrom(...wholeRequests()),
      // Per mille of the request: doubles would mostly be 0 or 1, which cut nothing.
      cut: fc.integer({ min: 0, max: 999 }),
      ending: fc.constantFrom<RawCase['ending']>('hang-up', 'reset'),
    })
    .map(({ request, cut, ending }) =>
      raw(request.subarray(0, Math.floor((request.length * cut) / 1000)), ending, false),
    ),
);
