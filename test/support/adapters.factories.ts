import { createHash } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Socket, createServer as createTcpServer } from 'node:net';
import { AppConfig } from '../../src/config/configuration';
import { validateEnvironment } from '../../src/config/env.validation';

/*
 * Local stand-ins for the providers' APIs, on 127.0.0.1 only: adapter specs point the
 * provider URLs of their configuration at these.
 */

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

export type FakeHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  body: string,
) => void | Promise<void>;

/** The configuration adapters receive, with extra variables (provider URLs, timeout). */
export function adapterConfig(env: Record<string, string> = {}): AppConfig {
  return new AppConfig(validateEnvironment({ LOG_LEVEL: 'silent', ...env }));
}

/** An HTTP server on a free port of 127.0.0.1 answering with `handler`. */
export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void Promise.resolve(handler(request, response, Buffer.concat(chunks).toString('utf8')));
    });
  });
  return listen(server);
}

/** A server that accepts requests and never answers them: a provider that hangs. */
export function startSilentServer(): Promise<FakeServer> {
  return startFakeServer(() => undefined);
}

/** A port of 127.0.0.1 where nothing listens: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Sends `value` as a JSON answer with `status`. */
export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(value));
}

async function listen(server: Server): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
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

export interface FakeOvhService {
  creditsLeft: number;
  virtualNumbers: string[];
  senders: string[];
}

export interface FakeOvhCall {
  method: string;
  path: string;
  timestamp: string | undefined;
}

/**
 * The OVH API as documented: `GET /auth/time` unauthenticated, every other call signed with
 * the X-Ovh-* headers, the signature recomputed here from the application secret. Its clock
 * runs an hour ahead of the local one, so a client that signs with its own time is refused.
 */
export class FakeOvh {
  static readonly APP_KEY = 'fakeAppKey000001';
  static readonly APP_SECRET = 'fakeAppSecret0000000000000000001';
  static readonly CONSUMER_KEY = 'fakeConsumerKey00000000000000001';
  static readonly SERVICE = 'sms-ab12345-1';
  static readonly CLOCK_SKEW_SECONDS = 3600;

  readonly services = new Map<string, FakeOvhService>([
    [FakeOvh.SERVICE, { creditsLeft: 42, virtualNumbers: ['0033612345678'], senders: ['SMSGW'] }],
  ]);
  readonly calls: FakeOvhCall[] = [];
  failWith: number | null = null;

  constructor(private readonly origin: () => string) {}

  /** The data of a phone using this fake's credentials. */
  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      service_name: FakeOvh.SERVICE,
      app_key: FakeOvh.APP_KEY,
      app_secret: FakeOvh.APP_SECRET,
      consumer_key: FakeOvh.CONSUMER_KEY,
      ...overrides,
    };
  }

  readonly handle: FakeHandler = (request, response, body) => {
    const path = (request.url ?? '/').replace(/^\/1\.0/, '');
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const timestamp = header('x-ovh-timestamp');
    this.calls.push({ method: request.method ?? '', path, timestamp });
    const now = Math.floor(Date.now() / 1000) + FakeOvh.CLOCK_SKEW_SECONDS;
    if (this.failWith) {
      sendJson(response, this.failWith, { message: 'Internal server error' });
      return;
    }
    if (request.method === 'GET' && path === '/auth/time') {
      sendJson(response, 200, now);
      return;
    }
    if (header('x-ovh-application') !== FakeOvh.APP_KEY) {
      sendJson(response, 403, { errorCode: 'INVALID_KEY', message: 'Invalid application key' });
      return;
    }
    if (header('x-ovh-consumer') !== FakeOvh.CONSUMER_KEY) {
      sendJson(response, 403, {
        errorCode: 'INVALID_CREDENTIAL',
        message: 'This credential does not exist',
      });
      return;
    }
    if (!timestamp || Math.abs(Number(timestamp) - now) > 10) {
      sendJson(response, 400, { message: 'Invalid timestamp' });
      return;
    }
    const signed = [
      FakeOvh.APP_SECRET,
      FakeOvh.CONSUMER_KEY,
      request.method,
      `${this.origin()}${request.url}`,
      body,
      timestamp,
    ].join('+');
    if (header('x-ovh-signature') !== `$1$${createHash('sha1').update(signed).digest('hex')}`) {
      sendJson(response, 400, { message: 'Invalid signature' });
      return;
    }
    this.route(request.method ?? '', path, response);
  };

  private route(method: string, path: string, response: ServerResponse): void {
    const match = /^\/sms\/([^/]+)(?:\/(virtualNumbers|senders)\/([^/]+))?$/.exec(path);
    const service = match && this.services.get(decodeURIComponent(match[1]));
    if (method !== 'GET' || !match || !service) {
      sendJson(response, 404, { message: 'The requested object does not exist' });
      return;
    }
    const [, name, list, item] = match;
    if (!list) {
      sendJson(response, 200, { name, creditsLeft: service.creditsLeft, status: 'enable' });
      return;
    }
    const items = list === 'virtualNumbers' ? service.virtualNumbers : service.senders;
    if (!items.includes(decodeURIComponent(item))) {
      sendJson(response, 404, { message: 'The requested object does not exist' });
      return;
    }
    sendJson(response, 200, { [list === 'virtualNumbers' ? 'number' : 'sender']: item });
  }
}

/** A fake OVH API on 127.0.0.1; `apiUrl` is the value for OVH_API_URL. */
export async function startFakeOvh(): Promise<{
  fake: FakeOvh;
  server: FakeServer;
  apiUrl: string;
}> {
  let origin = '';
  const fake = new FakeOvh(() => origin);
  const server = await startFakeServer(fake.handle);
  origin = server.url;
  return { fake, server, apiUrl: `${server.url}/1.0` };
}
