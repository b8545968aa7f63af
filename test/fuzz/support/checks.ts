import { Answer, WireCase } from './wire';

/*
 * What every answer must be, whatever was asked (README "An envelope on every error"): the
 * envelope under the API, an empty body from the provider callbacks, a file or an empty 404 from
 * the media route, and nowhere a trace of the server's insides.
 */

export const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];

/**
 * The HTTP statuses each error code may come with: the README's table, and for error 2 what it
 * says of requests Node's parser refuses (408 too late, 417 an unknown Expect, 431 headers too
 * large).
 */
const STATUSES_OF_CODE: Readonly<Record<number, readonly number[]>> = {
  0: [200, 201],
  // 403: a console request without its CSRF token; 429: sign-ins after too many failures.
  1: [401, 403, 429],
  // 422: an idempotency key already used for a different request.
  2: [400, 404, 408, 413, 417, 431, 422],
  4: [400],
  // 409: the first request with an idempotency key still being processed.
  8: [422, 409],
  16: [403],
  // 422: a delete refused for another reason (a phone group that pending messages name).
  32: [404, 422],
  64: [413],
  128: [404, 422],
  // 500 is a failure; 503 (database unreachable) is documented but not expected here.
  256: [503],
};

/** Which documented format a path answers in. */
export type Surface = 'api' | 'callback' | 'media' | 'docs' | 'undecodable' | 'console';

const CALLBACK_ROUTE = /^\/callback\/(?:status\/[^/]+|reception\/[^/]+\/[^/]+)\/?$/i;
const MEDIA_ROUTE = /^\/media\/[^/]+\/[^/]+\/?$/i;
/** The OpenAPI document and its UI (HTML and assets) are documented, not envelopes. */
const DOCS_ROUTE = /^\/api\/docs(?:-json)?(?:[/.?]|$)/i;
/** What a GET outside these answers is the console's page (README, first lines). */
const NOT_CONSOLE = /^\/+(?:api|callback|media|health|metrics)(?:\/|$)/i;
const CONSOLE_FILES = /^\/assets\//i;

export function pathOnly(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

export function surfaceOf(method: string, target: string): Surface {
  const path = pathOnly(target);
  if (!/^\/api(?:\/|$)/i.test(path) && !decodes(path)) {
    return 'undecodable';
  }
  if (CALLBACK_ROUTE.test(path)) {
    return 'callback';
  }
  if (MEDIA_ROUTE.test(path) && ['GET', 'HEAD'].includes(method.toUpperCase())) {
    return 'media';
  }
  if (DOCS_ROUTE.test(path)) {
    return 'docs';
  }
  if (['GET', 'HEAD'].includes(method.toUpperCase()) && !NOT_CONSOLE.test(path)) {
    return 'console';
  }
  return 'api';
}

/** Whether every segment of a path decodes, as the router decodes them. */
function decodes(path: string): boolean {
  return path.split('/').every((segment) => {
    try {
      decodeURIComponent(segment);
      return true;
    } catch {
      return false;
    }
  });
}

/** Outside the API, a path that does not decode names nothing: an empty 404. */
export function checkUndecodable(answer: Answer): string[] {
  return answer.status === 404 && answer.body.length === 0
    ? []
    : [
        `a path that does not decode, outside /api, answered HTTP ${answer.status} ${preview(answer.body)}`,
      ];
}

/** The creations (HTTP 201), and post_stop: 201 for a new number, 200 for one already there. */
const CREATIONS =
  /^\/api\/(?:scheduled|phone|contact|group|conditional_group|phone_group|webhook)\/?$/i;
const STOP = /^\/api\/stop\/?$/i;

function successStatuses(method: string, target: string): number[] {
  const path = pathOnly(target);
  if (method !== 'POST') {
    return [200];
  }
  if (STOP.test(path)) {
    return [200, 201];
  }
  return CREATIONS.test(path) ? [201] : [200];
}

/** Parses an envelope or says why the body is not one. */
export function readEnvelope(
  body: Buffer,
): { envelope: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { problem: 'the body is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'the body is not a JSON object' };
  }
  const keys = Object.keys(parsed);
  if (keys.join() !== ENVELOPE_KEYS.join()) {
    return {
      problem: `the keys are ${JSON.stringify(keys)}, not ${JSON.stringify(ENVELOPE_KEYS)}`,
    };
  }
  return { envelope: parsed as Record<string, unknown> };
}

/**
 * An API answer: the envelope, its key order, a known code and the status of that code. `method`
 * is null for raw requests, whose operation (and so success status) is not known.
 */
export function checkEnvelope(answer: Answer, method: string | null, target: string): string[] {
  const status = answer.status ?? 0;
  if (method?.toUpperCase() === 'HEAD') {
    return answer.body.length ? [`a HEAD answer has a body of ${answer.body.length} bytes`] : [];
  }
  const read = readEnvelope(answer.body);
  if ('problem' in read) {
    return [`HTTP ${status}: not the envelope: ${read.problem}`];
  }
  const { error, message, response, next, prev } = read.envelope;
  const problems: string[] = [];
  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? '')) {
    problems.push(`the envelope's Content-Type is ${answer.headers['content-type'] ?? 'absent'}`);
  }
  if (typeof error !== 'number' || !Number.isInteger(error) || !(error in STATUSES_OF_CODE)) {
    problems.push(`error ${JSON.stringify(error)} is not a code of the API`);
    return problems;
  }
  if (error === 0) {
    const expected = method === null ? [200, 201] : successStatuses(method.toUpperCase(), target);
    if (!expected.includes(status)) {
      problems.push(`a success answered HTTP ${status}`);
    }
    if (message !== null) {
      problems.push('a success has a message');
    }
  } else {
    if (!STATUSES_OF_CODE[error].includes(status)) {
      problems.push(`error ${error} came with HTTP ${status}`);
    }
    if (typeof message !== 'string' || message === '') {
      problems.push(`error ${error} has no message`);
    }
    if (response !== null) {
      problems.push(`error ${error} has a response`);
    }
  }
  for (const [name, link] of Object.entries({ next, prev })) {
    if (link !== null && typeof link !== 'string') {
      problems.push(`${name} is neither null nor a URL`);
    }
  }
  return problems;
}

/**
 * Callbacks answer providers with an empty body: 200, 401/403 for the key, 413 for size, and
 * 400/404 for a path that cannot be read (a malformed escape).
 */
export function checkCallback(answer: Answer): string[] {
  const problems: string[] = [];
  if (![200, 400, 401, 403, 404, 413].includes(answer.status ?? 0)) {
    problems.push(`a callback answered HTTP ${answer.status}`);
  }
  if (answer.body.length) {
    problems.push(`a callback answered a body: ${preview(answer.body)}`);
  }
  return problems;
}

/**
 * The console's page, never cached and never framed, or a 404 for one of its files that does
 * not exist.
 */
export function checkConsole(answer: Answer, method: string | null, target: string): string[] {
  const status = answer.status ?? 0;
  if (status === 404 && CONSOLE_FILES.test(pathOnly(target))) {
    return [];
  }
  const problems: string[] = [];
  if (status !== 200) {
    problems.push(`a console route answered HTTP ${status}`);
  }
  if (!/^text\/html\b/.test(answer.headers['content-type'] ?? '')) {
    problems.push(`the console's page is ${answer.headers['content-type'] ?? 'without a type'}`);
  }
  if (answer.headers['cache-control'] !== 'no-cache') {
    problems.push(`the console's page is cached: ${answer.headers['cache-control']}`);
  }
  if (!/frame-ancestors 'none'/.test(answer.headers['content-security-policy'] ?? '')) {
    problems.push("the console's page may be framed");
  }
  if (method?.toUpperCase() === 'HEAD' && answer.body.length) {
    problems.push(`a HEAD answer has a body of ${answer.body.length} bytes`);
  }
  return problems;
}

/** Content types a browser runs scripts in: a media served so is stored XSS on the API's origin. */
const ACTIVE_TYPES =
  /^(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript)\b/i;

/** Media: the file (200; 206 or 304 when the request asked so) or an empty 404. */
export function checkMedia(wire: WireCase, answer: Answer): string[] {
  const status = answer.status ?? 0;
  const headers = wire.kind === 'http' ? wire.headers.map(([name]) => name.toLowerCase()) : [];
  const allowed = [200, 404];
  if (headers.includes('range')) {
    allowed.push(206);
  }
  if (headers.includes('if-none-match') || headers.includes('if-modified-since')) {
    allowed.push(304);
  }
  const problems: string[] = [];
  if (!allowed.includes(status)) {
    problems.push(`the media route answered HTTP ${status}`);
  }
  if (status === 404 && answer.body.length) {
    problems.push(`the media route's 404 has a body: ${preview(answer.body)}`);
  }
  const type = answer.headers['content-type'] ?? '';
  if ((status === 200 || status === 206) && ACTIVE_TYPES.test(type)) {
    problems.push(`a media is served as ${type}, which browsers run scripts in`);
  }
  return problems;
}

const INTERNAL_TEXT: readonly RegExp[] = [
  / {4}at \S/,
  /\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/,
  /node_modules/,
  /\b(?:Type|Reference|Syntax|Range|URI|Eval)Error\b/,
  /\bSQLITE_[A-Z_]+/,
  /\bER_[A-Z_]{2,}/,
  /QueryFailedError|EntityNotFound|EntityPropertyNotFound|TypeORMError/,
  /Failed to decode param/,
  /Cannot (?:read|set) propert/,
  /is not a function|is not iterable/,
  /<!DOCTYPE|<html|<pre>/i,
];

/**
 * Internal text in an answer: stack frames, module paths, error class names, driver codes,
 * Express's own messages, the server's file paths. What the request itself carried is not
 * counted: an error message may quote the caller's value.
 */
export function checkInternalText(
  answer: Answer,
  requestText: string,
  serverPaths: readonly string[],
): string[] {
  const text = `${Object.entries(answer.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')}\n${answer.body.toString('utf8')}`;
  const problems: string[] = [];
  for (const pattern of INTERNAL_TEXT) {
    const found = pattern.exec(text)?.[0];
    if (found && !requestText.includes(found)) {
      problems.push(`internal text in the answer: ${JSON.stringify(found)}`);
    }
  }
  for (const path of serverPaths) {
    if (text.includes(path) && !requestText.includes(path)) {
      problems.push(`a server file path in the answer: ${path}`);
    }
  }
  return problems;
}

/** The request as text the server could quote back: bytes, and percent-decoded. */
export function requestText(wire: WireCase): string {
  const bytes =
    wire.kind === 'raw'
      ? wire.bytes
      : Buffer.concat([
          Buffer.from(`${wire.method} ${wire.path}\n`, 'latin1'),
          Buffer.from(
            wire.headers.map(([name, value]) => `${name}: ${value}`).join('\n'),
            'latin1',
          ),
          Buffer.from('\n'),
          wire.body ?? Buffer.alloc(0),
        ]);
  const utf8 = bytes.toString('utf8');
  return `${utf8}\n${bytes.toString('latin1')}\n${lenientDecode(utf8)}\n${lenientDecode(utf8.replace(/\+/g, ' '))}`;
}

/** Percent-decodes what decodes, leaving malformed escapes as they are. */
function lenientDecode(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

export function preview(body: Buffer, max = 300): string {
  const text = body.toString('utf8');
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
