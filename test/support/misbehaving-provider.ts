import { IncomingMessage, ServerResponse } from 'node:http';
import { FakeServer, closedPort, startFakeServer } from './adapters.factories';

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
