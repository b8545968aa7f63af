import fc from 'fast-check';
import { PNG } from '../../support/scheduled.factories';
import { requestFamily, Family } from '../support/runner';
import { HttpCase } from '../support/wire';
import { KEYS } from '../support/world';

/*
 * Malformed multipart bodies inside well-formed HTTP requests: parts without a usable name,
 * bodies cut short, broken structure and part headers, thousands of parts, files where fields
 * are expected and the reverse.
 */

const TARGETS = ['/api/scheduled/', '/api/phone/', '/api/phone/1/'];

interface Part {
  /** The part's header lines, without CRLF. */
  headers: string[];
  content: Buffer;
}

const field = (name: string, value: string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  content: Buffer.from(value),
});

const file = (name: string, filename: string, content: Buffer, type = 'image/png'): Part => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    `Content-Type: ${type}`,
  ],
  content,
});

const BASE: Part[] = [
  field('text', 'Hello'),
  field('numbers[]', '+33612345678'),
  field('at', '2099-01-01 00:00:00'),
  field('mms', '1'),
];

function body(boundary: string, parts: Part[], final = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`),
      part.content,
      Buffer.from('\r\n'),
    );
  }
  if (final) {
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
  }
  return Buffer.concat(chunks);
}

function request(path: string, contentType: string, payload: Buffer): HttpCase {
  return {
    kind: 'http',
    method: 'POST',
    path: `${path}?api_key=${KEYS.main}`,
    headers: [['Content-Type', contentType]],
    body: payload,
  };
}

const DISPOSITIONS = [
  'form-data',
  'form-data; name=""',
  "form-data; name*=UTF-8''text",
  "form-data; name*=utf-8''%E2%82%AC",
  'form-data; filename="a.png"',
  'form-data; name=""; filename="a.png"',
  'form-data; name*=UTF-8\'\'medias%5B%5D; filename="a.png"',
  'form-data; name=text; name=tag',
  'form-data; name="te"xt"',
  'attachment; name="text"',
  'inline',
  '',
  'form-data; name="a\u0000b"',
  'form-data; name="[]"',
  'form-data; name="["',
  'form-data; name="]"',
  'form-data; name="__proto__"',
  'form-data; name="__proto__[polluted]"',
  'form-data; name="constructor[prototype][x]"',
  'form-data; name=unquoted',
  'form-data; NAME="text"',
  'form-data; name="medias[]"; filename*=UTF-8\'\'%C3%A9.png',
  'form-data; name="medias[]"; filename=""',
  'form-data; name="numbers_csv"; filename=""',
  'form-data; name="medias[]"; filename',
  'form-data; name',
  'form-data;;;',
  'form-data; name="' + 'n'.repeat(300) + '"',
  'form-data; name="text"; filename="../../../../tmp/x"',
];

export const multipartNames: Family = requestFamily('multipart-names', 4, () =>
  fc
    .record({
      path: fc.constantFrom(...TARGETS),
      disposition: fc.constantFrom(...DISPOSITIONS),
      isFile: fc.boolean(),
      withDisposition: fc.boolean(),
      before: fc.boolean(),
    })
    .map(({ path, disposition, isFile, withDisposition, before }) => {
      const headers = withDisposition ? [`Content-Disposition: ${disposition}`] : [];
      if (isFile) {
        headers.push('Content-Type: image/png');
      }
      const odd: Part = { headers, content: isFile ? PNG : Buffer.from('value') };
      const parts = before ? [odd, ...BASE] : [...BASE, odd];
      return request(path, 'multipart/form-data; boundary=fuzzname', body('fuzzname', parts));
    }),
);

const FILE_CONTENTS = [
  PNG,
  Buffer.alloc(0),
  Buffer.alloc(70_000, 0x41),
  Buffer.from('number\n+33612345678\n'),
];

/** A valid body with files, cut anywhere, declared with its cut length: the request is whole. */
export const multipartTruncated: Family = requestFamily('multipart-truncated', 3, () =>
  fc
    .record({
      path: fc.constantFrom(...TARGETS),
      files: fc.array(
        fc.record({
          name: fc.constantFrom('medias[]', 'numbers_csv', 'medias', 'text'),
          content: fc.constantFrom(...FILE_CONTENTS),
        }),
        { minLength: 0, maxLength: 2 },
      ),
      // Per mille of the body: doubles would mostly be 0 or 1, which cut nothing.
      cut: fc.integer({ min: 0, max: 999 }),
    })
    .map(({ path, files, cut }) => {
      const whole = body('fuzzcut', [
        ...BASE,
        ...files.map(({ name, content }) => file(name, 'f.png', content)),
      ]);
      return request(
        path,
        'multipart/form-data; boundary=fuzzcut',
        whole.subarray(0, Math.floor((whole.length * cut) / 1000)),
      );
    }),
);

type Mutation =
  | 'no-final-boundary'
  | 'lf-only'
  | 'preamble'
  | 'epilogue'
  | 'other-boundary'
  | 'header-no-colon'
  | 'header-huge'
  | 'header-nul'
  | 'headers-many'
  | 'parts-many'
  | 'nested'
  | 'base64'
  | 'charset-field'
  | 'empty-parts'
  | 'file-for-field'
  | 'field-for-file'
  | 'boundary-in-content';

const MUTATIONS: Mutation[] = [
  'no-final-boundary',
  'lf-only',
  'preamble',
  'epilogue',
  'other-boundary',
  'header-no-colon',
  'header-huge',
  'header-nul',
  'headers-many',
  'parts-many',
  'nested',
  'base64',
  'charset-field',
  'empty-parts',
  'file-for-field',
  'field-for-file',
  'boundary-in-content',
];

const BOUNDARIES = [
  'fuzzb',
  '"fuzzb"',
  'fuzz b',
  'a'.repeat(70),
  'a'.repeat(200),
  'fuzz=b',
  "fuzz'b",
  '--',
  'é',
];

function mutate(mutation: Mutation, boundary: string, count: number): Buffer {
  const withFile = [...BASE, file('medias[]', 'a.png', PNG)];
  switch (mutation) {
    case 'no-final-boundary':
      return body(boundary, withFile, false);
    case 'lf-only':
      return Buffer.from(
        body(boundary, withFile).toString('latin1').replace(/\r\n/g, '\n'),
        'latin1',
      );
    case 'preamble':
      return Buffer.concat([
        Buffer.from('garbage before\r\n--not-it\r\n'),
        body(boundary, withFile),
      ]);
    case 'epilogue':
      return Buffer.concat([
        body(boundary, withFile),
        Buffer.from(
          `garbage after\r\n--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\nlate\r\n`,
        ),
      ]);
    case 'other-boundary':
      return body(`${boundary}x`, withFile);
    case 'header-no-colon':
      return body(boundary, [
        ...BASE,
        { headers: ['Content-Disposition form-data name=text'], content: Buffer.from('x') },
      ]);
    case 'header-huge':
      return body(boundary, [
        ...BASE,
        {
          headers: [`Content-Disposition: form-data; name="tag"; x="${'h'.repeat(count * 50)}"`],
          content: Buffer.from('x'),
        },
      ]);
    case 'header-nul':
      return body(boundary, [
        ...BASE,
        {
          headers: ['Content-Disposition: form-data; name="tag"\u0000', 'X-\u0000: y'],
          content: Buffer.from('x'),
        },
      ]);
    case 'headers-many':
      return body(boundary, [
        ...BASE,
        {
          headers: [
            'Content-Disposition: form-data; name="tag"',
            ...Array.from({ length: count }, (_, i) => `X-H${i}: v`),
          ],
          content: Buffer.from('x'),
        },
      ]);
    case 'parts-many':
      return body(boundary, [
        ...BASE,
        ...Array.from({ length: count }, (_, i) => field(`numbers[${i}]`, '+33612345678')),
      ]);
    case 'nested':
      return body(boundary, [
        ...BASE,
        {
          headers: [
            'Content-Disposition: form-data; name="medias[]"',
            'Content-Type: multipart/mixed; boundary=inner',
          ],
          content: body('inner', [file('medias[]', 'b.png', PNG)]),
        },
      ]);
    case 'base64':
      return body(boundary, [
        ...BASE,
        {
          headers: [
            'Content-Disposition: form-data; name="medias[]"; filename="a.png"',
            'Content-Type: image/png',
            'Content-Transfer-Encoding: base64',
          ],
          content: Buffer.from(PNG.toString('base64')),
        },
      ]);
    case 'charset-field':
      return body(boundary, [
        field('_charset_', 'iso-8859-1'),
        ...BASE,
        {
          headers: [
            'Content-Disposition: form-data; name="tag"',
            'Content-Type: text/plain; charset=utf-16le',
          ],
          content: Buffer.from([0xe9, 0x00, 0xff]),
        },
      ]);
    case 'empty-parts':
      return body(boundary, [
        ...BASE,
        field('tag', ''),
        file('medias[]', 'empty.png', Buffer.alloc(0)),
        file('numbers_csv', 'empty.csv', Buffer.alloc(0), 'text/csv'),
      ]);
    case 'file-for-field':
      return body(boundary, [
        file('text', 't.txt', Buffer.from('Hello'), 'text/plain'),
        file('api_key', 'k.txt', Buffer.from(KEYS.main), 'text/plain'),
        file('id_phone', '1.txt', Buffer.from('1')),
        field('numbers[]', '+33612345678'),
      ]);
    case 'field-for-file':
      return body(boundary, [
        ...BASE,
        field('numbers_csv', 'number\n+33612345678\n'),
        field('medias[]', 'not a file'),
        field('medias', 'x'),
      ]);
    case 'boundary-in-content':
      return body(boundary, [
        ...BASE,
        file(
          'medias[]',
          'a.png',
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\ninjected`,
          ),
        ),
      ]);
  }
}

export const multipartStructure: Family = requestFamily('multipart-structure', 4, () =>
  fc
    .record({
      path: fc.constantFrom(...TARGETS),
      mutation: fc.constantFrom(...MUTATIONS),
      boundary: fc.constantFrom(...BOUNDARIES),
      count: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1000, max: 5000 })),
    })
    .map(({ path, mutation, boundary, count }) => {
      // A quoted boundary parameter names the boundary without its quotes.
      const used = boundary.replace(/^"(.*)"$/, '$1');
      return request(
        path,
        `multipart/form-data; boundary=${boundary}`,
        mutate(mutation, used, count),
      );
    }),
);
