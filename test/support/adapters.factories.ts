import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo, Socket, createServer as createTcpServer } from 'node:net';
import {
  InboundSink,
  IncomingSms,
  ListenedPhone,
  OutgoingSms,
  RefusalCause,
  ReportedStatus,
  StatusReport,
} from '../../src/adapters/adapter';
import { parseJson } from '../../src/adapters/provider-http';
import { OutboundPolicy, Resolver } from '../../src/common/net/outbound-policy';
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

/**
 * What adapters that connect where users say (Kannel, SMPP) are built with: the configuration
 * and the outbound policy it sets, resolving host names with `resolver` when one is given.
 */
export function adapterDeps(
  env: Record<string, string> = {},
  resolver?: Resolver,
): [AppConfig, OutboundPolicy] {
  const config = adapterConfig(env);
  return [config, new OutboundPolicy(config.outbound, resolver)];
}

/**
 * An HTTP server on a free port of 127.0.0.1 answering with `handler`. `listenOn: '::'`
 * listens on every local address instead, so that connections to `0.0.0.0` and `[::]`, which
 * reach this host, would reach it: tests of the outbound policy show it refuses them.
 */
export async function startFakeServer(
  handler: FakeHandler,
  listenOn: '127.0.0.1' | '::' = '127.0.0.1',
): Promise<FakeServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void Promise.resolve(handler(request, response, Buffer.concat(chunks).toString('utf8')));
    });
  });
  return listen(server, listenOn);
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

async function listen(server: Server, host: string): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
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
  /** The request body as sent. */
  body: string;
}

/** A received message as `GET …/incoming/{id}` gives it. */
export interface FakeOvhIncoming {
  id: number;
  creationDatetime: string;
  message: string;
  sender: string;
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
  /** The status to answer one signed call with instead of its documented answer, if any. */
  failWhen: ((call: FakeOvhCall) => number | null) | null = null;
  /** Bodies of the sending jobs posted, with the path they were posted to. */
  readonly jobs: Array<{ path: string; body: Record<string, unknown> }> = [];
  /** What `POST …/jobs` answers instead of a sending report, when set. */
  jobReply: { status: number; body: unknown } | null = null;
  /**
   * Received messages by inbox: `/sms/{service}` for the service's own, or
   * `/sms/{service}/virtualNumbers/{number}` for a virtual number's.
   */
  readonly incoming = new Map<string, FakeOvhIncoming[]>();
  private nextJobId = 7_000_001;

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
    const call = { method: request.method ?? '', path, timestamp, body };
    this.calls.push(call);
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
    const failure = this.failWhen?.(call) ?? null;
    if (failure) {
      sendJson(response, failure, { message: 'Failure asked of the fake' });
      return;
    }
    this.route(request.method ?? '', path, body, response);
  };

  private route(method: string, path: string, body: string, response: ServerResponse): void {
    const notFound = () =>
      sendJson(response, 404, { message: 'The requested object does not exist' });
    const [root, name, ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
    const service = root === 'sms' ? this.services.get(name) : undefined;
    if (!service) {
      notFound();
      return;
    }
    let inbox = `/sms/${name}`;
    let below = rest;
    if (rest[0] === 'virtualNumbers' && rest.length >= 2) {
      if (!service.virtualNumbers.includes(rest[1])) {
        notFound();
        return;
      }
      inbox = `${inbox}/virtualNumbers/${rest[1]}`;
      below = rest.slice(2);
    }
    const route = `${method} ${below.join('/')}`;
    if (route === 'GET ') {
      sendJson(
        response,
        200,
        inbox.includes('/virtualNumbers/')
          ? { number: rest[1] }
          : { name, creditsLeft: service.creditsLeft, status: 'enable' },
      );
    } else if (method === 'GET' && below[0] === 'senders' && below.length === 2) {
      if (service.senders.includes(below[1])) {
        sendJson(response, 200, { sender: below[1] });
      } else {
        notFound();
      }
    } else if (route === 'POST jobs') {
      this.postJob(path, body, response);
    } else if (route === 'GET incoming') {
      sendJson(
        response,
        200,
        (this.incoming.get(inbox) ?? []).map(({ id }) => id),
      );
    } else if (below[0] === 'incoming' && below.length === 2) {
      const messages = this.incoming.get(inbox) ?? [];
      const index = messages.findIndex(({ id }) => String(id) === below[1]);
      if (index < 0 || (method !== 'GET' && method !== 'DELETE')) {
        notFound();
      } else if (method === 'GET') {
        sendJson(response, 200, { ...messages[index], credits: 0, tag: '' });
      } else {
        messages.splice(index, 1);
        sendJson(response, 200, null);
      }
    } else {
      notFound();
    }
  }

  /** A sending job, answered with OVH's sending report: receivers not in E.164 are invalid. */
  private postJob(path: string, body: string, response: ServerResponse): void {
    const job = (parseJson(body) ?? {}) as Record<string, unknown>;
    this.jobs.push({ path, body: job });
    if (this.jobReply) {
      sendJson(response, this.jobReply.status, this.jobReply.body);
      return;
    }
    if (typeof job.message !== 'string' || !Array.isArray(job.receivers)) {
      sendJson(response, 400, { message: 'Invalid body: message and receivers are required' });
      return;
    }
    const receivers = job.receivers.map(String);
    const valid = receivers.filter((receiver) => /^\+[1-9]\d{6,14}$/.test(receiver));
    sendJson(response, 200, {
      ids: valid.map(() => this.nextJobId++),
      invalidReceivers: receivers.filter((receiver) => !valid.includes(receiver)),
      validReceivers: valid,
      totalCreditsRemoved: valid.length,
    });
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

/** A message to send, with overrides. */
export function outgoingSms(overrides: Partial<OutgoingSms> = {}): OutgoingSms {
  return {
    destination: '+33687654321',
    text: 'Hello',
    flash: false,
    medias: [],
    idempotencyKey: 'smsgw-1',
    callbackUrls: null,
    validitySeconds: null,
    ...overrides,
  };
}

/**
 * An `InboundSink` recording what a listening adapter reports. `hold` keeps its answers
 * pending until `release`; `failures` makes that many of the next calls reject, as a store
 * whose database is down would.
 */
export class RecordingSink implements InboundSink {
  readonly statuses: StatusReport[] = [];
  readonly messages: IncomingSms[] = [];
  failures = 0;
  private readonly events = new EventEmitter();
  private held: Array<() => void> | null = null;

  hold(): void {
    this.held = [];
  }

  release(): void {
    for (const resume of this.held ?? []) {
      resume();
    }
    this.held = null;
  }

  status(_phone: ListenedPhone, report: StatusReport): Promise<void> {
    this.statuses.push(report);
    return this.answer();
  }

  received(_phone: ListenedPhone, sms: IncomingSms): Promise<void> {
    this.messages.push(sms);
    return this.answer();
  }

  /** Resolves once the sink has been called `count` times in all. */
  async calls(count = 1): Promise<void> {
    while (this.statuses.length + this.messages.length < count) {
      await new Promise((resolve) => this.events.once('call', resolve));
    }
  }

  private answer(): Promise<void> {
    this.events.emit('call');
    if (this.failures > 0) {
      this.failures -= 1;
      return Promise.reject(new Error('The store is down.'));
    }
    const held = this.held;
    return held ? new Promise((resolve) => held.push(resolve)) : Promise.resolve();
  }
}

/**
 * HTTP statuses a provider may refuse a message with, and whose refusal each is by the shared
 * rule (docs/adapters.md#refusals): the account's for the three that refuse it, the
 * recipient's for any other.
 */
export const REFUSAL_STATUS_CAUSES: ReadonlyArray<[number, RefusalCause]> = [
  [400, 'recipient'],
  [401, 'phone'],
  [402, 'phone'],
  [403, 'phone'],
  [404, 'recipient'],
  [422, 'recipient'],
  [500, 'recipient'],
];

/**
 * Delivery report types in Kannel's numbering, which OVH's `dlr` shares, and the status each
 * says: the three final ones, two intermediate ones and an empty type.
 */
export const DLR_TYPE_STATUSES: ReadonlyArray<[string, ReportedStatus]> = [
  ['1', 'delivered'],
  ['2', 'failed'],
  ['16', 'failed'],
  ['4', 'unknown'],
  ['8', 'unknown'],
  ['', 'unknown'],
];

/**
 * Listening that a spec's afterEach can always end: `listen` starts through `start` and keeps
 * the stop, `stopAll` stops whatever is still listening, even when the test failed before it
 * could.
 */
export function trackListening<Args extends unknown[]>(
  start: (...args: Args) => () => Promise<void>,
): { listen: (...args: Args) => () => Promise<void>; stopAll: () => Promise<void> } {
  const stops: Array<() => Promise<void>> = [];
  return {
    listen: (...args) => {
      const stop = start(...args);
      stops.push(stop);
      return stop;
    },
    stopAll: async () => {
      await Promise.all(stops.splice(0).map((stop) => stop()));
    },
  };
}

/**
 * Checks that `stop` waits for the round in progress while `sink` holds its store, and ends
 * once the sink lets it go.
 */
export async function expectStopToAwaitHeldRound(
  stop: () => Promise<void>,
  sink: RecordingSink,
): Promise<void> {
  let stopped = false;
  const stopping = stop().then(() => (stopped = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(stopped).toBe(false);

  sink.release();
  await stopping;
}

/** A Kannel phone's `adapter_data` (JSON) sending through the fake SMSC's sendsms at `url`. */
export function kannelAdapterData(url: string): string {
  return JSON.stringify({
    kannel_sendsms_url: `${url}/cgi-bin/sendsms`,
    username: 'smsgw',
    password: 'secret',
    from: 'smsgw',
  });
}
