import fc from 'fast-check';
import { Entry, FilePart, formPairs, jsonObject, ListStyle, multipart, urlencoded } from './params';
import { HttpCase } from './wire';
import { KEYS } from './world';

/*
 * Assembling generated parameters into one HTTP request: where the API key goes, where each
 * parameter goes (path, query, body), and how the body is encoded.
 */

export type KeyName = keyof typeof KEYS;

/** The key of the request: which user's (or a malformed one), and where it travels. */
export interface Auth {
  query?: string;
  form?: string;
  header?: string[];
}

const MALFORMED_KEYS = [
  '',
  ' ',
  'F0220000000000000000000000000001',
  `${KEYS.main} `,
  KEYS.main.slice(0, 31),
  '%00',
  'null',
  '\u00e9',
];

/** Mostly the main user's key in one place; sometimes another user's, none or a broken one. */
export const authArbitrary: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Auth>({ query: KEYS.main }) },
  { weight: 3, arbitrary: fc.constant<Auth>({ header: [KEYS.main] }) },
  { weight: 3, arbitrary: fc.constant<Auth>({ form: KEYS.main }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        query: fc.oneof(
          fc.constantFrom(...Object.values(KEYS)),
          fc.constantFrom(...MALFORMED_KEYS),
        ),
        form: fc.oneof(fc.constantFrom(...Object.values(KEYS)), fc.constantFrom(...MALFORMED_KEYS)),
        header: fc.array(
          fc.oneof(
            fc.constantFrom(...Object.values(KEYS)),
            fc.constantFrom(...MALFORMED_KEYS.filter((key) => /^[\x21-\x7e]*$/.test(key))),
          ),
          {
            maxLength: 2,
          },
        ),
      },
      { requiredKeys: [] },
    ),
  },
);

export type BodyEncoding = 'none' | 'form' | 'json' | 'multipart';

export interface Assembly {
  method: string;
  /** The path, already encoded. */
  path: string;
  query: Entry[];
  body: Entry[];
  encoding: BodyEncoding;
  listStyle: ListStyle;
  auth: Auth;
  files?: FilePart[];
  /** Extra headers, after the generated ones. */
  headers?: Array<[string, string]>;
  boundary?: string;
}

/** A GET request line longer than this is the header-size family's business, not the operations'. */
const MAX_QUERY_BYTES = 12_000;

export function assemble(parts: Assembly): HttpCase {
  const queryPairs = formPairs(parts.query, parts.listStyle);
  if (parts.auth.query !== undefined) {
    queryPairs.unshift(['api_key', parts.auth.query]);
  }
  let query = '';
  for (const pair of queryPairs) {
    const encoded = urlencoded([pair]);
    if (query.length + encoded.length > MAX_QUERY_BYTES) {
      break;
    }
    query += `${query ? '&' : ''}${encoded}`;
  }
  const headers: Array<[string, string]> = (parts.auth.header ?? []).map((key) => [
    'X-Api-Key',
    key,
  ]);
  const bodyEntries: Entry[] =
    parts.auth.form !== undefined
      ? [['api_key', { k: 'str', v: parts.auth.form }], ...parts.body]
      : parts.body;
  let body: Buffer | null = null;
  switch (parts.encoding) {
    case 'none':
      break;
    case 'form':
      headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
      body = Buffer.from(urlencoded(formPairs(bodyEntries, parts.listStyle)));
      break;
    case 'json':
      headers.push(['Content-Type', 'application/json']);
      body = Buffer.from(jsonObject(bodyEntries));
      break;
    case 'multipart': {
      const boundary = parts.boundary ?? '----fuzzboundary7MA4YWxkTrZu0gW';
      headers.push(['Content-Type', `multipart/form-data; boundary=${boundary}`]);
      body = multipart(boundary, formPairs(bodyEntries, parts.listStyle), parts.files ?? []);
      break;
    }
  }
  headers.push(...(parts.headers ?? []));
  return {
    kind: 'http',
    method: parts.method,
    path: query ? `${parts.path}?${query}` : parts.path,
    headers,
    body,
  };
}

/** A path segment: ids as they are, anything else percent-encoded as a client would. */
export function segment(text: string): string {
  return /^[\w.~-]+$/.test(text)
    ? text
    : encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'));
}
