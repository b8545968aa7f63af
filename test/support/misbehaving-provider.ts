import { IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, closedPort, startFakeServer } from './adapters.factories';
import { MAY_HAVE_BEEN_SENT } from '../../src/adapters/provider-http';

/** The ways a provider's API can go wrong that every adapter spec goes through. */
export type Misbehaviour =
  | 'rate-limited'
  | 'failing'
  | 'html-page'
  | 'invalid-json'
  | 'huge-body'
  | 'hang'
  | 'reset-mid-response'
  | 'refused';

export const MISBEHAVIOURS: readonly Misbehaviour[] = [
  'rate-limited',
  'failing',
  'html-page',
  'invalid-json',
  'huge-body',
  'hang',
  'reset-mid-response',
  'refused',
];

/**
 * Answers, as the provider does, a request that must succeed for the misbehaving one to be made
 * at all (OVH's clock query before each signed call); false for the others, which misbehave.
 */
export type WellAnswered = (request: IncomingMessage, response: ServerResponse) => boolean;

/** The provider timeout when the provider hangs, so that a spec stays quick. */
export const HANG_TIMEOUT_MS = 300;
/** The timeout otherwise: generous, so that a loaded machine cannot turn an answer into none. */
export const ANSWER_TIMEOUT_MS = 10_000;

/** The provider timeout a spec gives its adapter for the `how` misbehaviour. */
export function timeoutFor(how: Misbehaviour): number {
  return how === 'hang' ? HANG_TIMEOUT_MS : ANSWER_TIMEOUT_MS;
}

/**
 * A server on 127.0.0.1 that answers every request the `how` way, but those `wellAnswered`
 * answers; for `refused`, a port where nothing listens. `html-page`, `invalid-json` and
 * `huge-body` answer HTTP 200, as a proxy or a broken provider may.
 */
export async function startMisbehavingServer(
  how: Misbehaviour,
  wellAnswered: WellAnswered = () => false,
): Promise<FakeServer> {
  if (how === 'refused') {
    const port = await closedPort();
    return { url: `http://127.0.0.1:${port}`, port, close: () => Promise.resolve() };
  }
  return startFakeServer((request, response) => {
    if (wellAnswered(request, response)) {
      return;
    }
    if (how === 'rate-limited') {
      response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      response.end('{"code":429,"message":"Too many requests"}');
    } else if (how === 'failing') {
      response.writeHead(503, { 'Content-Type': 'text/plain' });
      response.end('Service Unavailable');
    } else if (how === 'html-page') {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<html><body><h1>Maintenance</h1></body></html>');
    } else if (how === 'invalid-json') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{"sms_ticket": ');
    } else if (how === 'huge-body') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(`{"padding":"${'x'.repeat(8 * 1024 * 1024)}"}`);
    } else if (how === 'reset-mid-response') {
      resetMidResponse(request);
    }
    // hang: the request is read, no answer ever comes.
  });
}

/**
 * Writes the start of an answer on the request's connection itself, bypassing the HTTP server,
 * then resets it.
 */
function resetMidResponse(request: IncomingMessage): void {
  const { socket } = request;
  socket.write(
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sms',
  );
  setTimeout(() => socket.resetAndDestroy(), 20);
}

/**
 * Misbehaving servers for the tests of one `describe`, each with the adapter `make` builds for
 * its URL and the provider timeout `timeoutFor` gives; they close after each test, and so do the
 * servers a test pushes into `servers`.
 */
export function misbehavingAdapters<A>(make: (url: string, timeoutMs: number) => A): {
  servers: FakeServer[];
  misbehaving: (how: Misbehaviour) => Promise<{ url: string; adapter: A }>;
} {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((broken) => broken.close()));
  });
  const misbehaving = async (how: Misbehaviour) => {
    const broken = await startMisbehavingServer(how);
    servers.push(broken);
    return { url: broken.url, adapter: make(broken.url, timeoutFor(how)) };
  };
  return { servers, misbehaving };
}

/**
 * The outcome of a send to `provider` that misbehaves so, by the shared rules, for an adapter
 * with the timeouts `timeoutFor` gives: `unreadable` the reason for an HTTP 200 it cannot read.
 */
export function sharedSendOutcomes(
  provider: string,
  unreadable: string,
): Record<Misbehaviour, (url: string) => unknown> {
  return {
    'rate-limited': () => ({
      outcome: 'transient',
      reason: `${provider} answered HTTP 429 (too many requests): try again later.`,
    }),
    failing: () => ({
      outcome: 'transient',
      reason: `${provider} answered HTTP 503: it is failing on its side, try again later.`,
    }),
    'html-page': () => ({ outcome: 'ambiguous', reason: unreadable }),
    'invalid-json': () => ({ outcome: 'ambiguous', reason: unreadable }),
    'huge-body': () => ({ outcome: 'ambiguous', reason: unreadable }),
    hang: (url) => ({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${url} within ${HANG_TIMEOUT_MS} ms. ${MAY_HAVE_BEEN_SENT}`,
    }),
    'reset-mid-response': (url) => ({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${url} (connection reset). ${MAY_HAVE_BEEN_SENT}`,
    }),
    refused: (url) => ({
      outcome: 'transient',
      reason: `Could not reach ${provider} at ${url} (connection refused).`,
    }),
  };
}
