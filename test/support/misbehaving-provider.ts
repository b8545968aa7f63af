import { createServer as createTcpServer, Socket } from 'node:net';
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
 * A server on 127.0.0.1 that answers every request the `how` way; for `refused`, a port where
 * nothing listens. `html-page`, `invalid-json` and `huge-body` answer HTTP 200, as a proxy or a
 * broken provider may.
 */
export async function startMisbehavingServer(how: Misbehaviour): Promise<FakeServer> {
  if (how === 'refused') {
    const port = await closedPort();
    return { url: `http://127.0.0.1:${port}`, port, close: () => Promise.resolve() };
  }
  if (how === 'reset-mid-response') {
    return startResettingServer();
  }
  return startFakeServer((_request, response) => {
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
    }
    // hang: the request is read, no answer ever comes.
  });
}

/** Reads the request, writes the start of an answer, then resets the connection. */
async function startResettingServer(): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => {
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sms',
      );
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
