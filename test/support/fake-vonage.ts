import { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../src/adapters/provider-http';
import { FakeHandler, FakeServer, sendJson, startFakeServer } from './adapters.factories';
import { Misbehaviour, misbehave } from './fake-misbehaviour';

/**
 * Vonage's SMS API as documented: `POST /sms/json` with `api_key` and `api_secret` in a form
 * or JSON body, answered HTTP 200 with `message-count` and one `messages[]` entry per part,
 * each with its `status` ("0" taken, "1" throttled, "2" missing parameter, "3" invalid
 * parameter, "4" bad credentials, "9" quota exceeded, "15" illegal sender…) and, when taken,
 * its `message-id`; and `GET /account/get-balance` with the credentials in the query,
 * answered with `{value, autoReload}` or HTTP 401.
 */
export class FakeVonage {
  static readonly API_KEY = 'a1b2c3d4';
  static readonly API_SECRET = 'Secret0123456789';
  static readonly SENDER = '33612345678';

  balance = 12.5;
  autoReload = false;
  /** Statuses the next sends get for their first part, one each, before normal answers. */
  readonly sendStatuses: string[] = [];
  /** A misbehaviour for every request, with the HTTP status it answers with. */
  misbehaviour: { kind: Misbehaviour; status?: number } | null = null;
  /** Answers every request with this HTTP status and a JSON problem body. */
  failWith: number | null = null;
  /** Forms of the sends that passed authentication. */
  readonly sent: Array<Record<string, string>> = [];
  private nextId = 0x0a000001;

  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      api_key: FakeVonage.API_KEY,
      api_secret: FakeVonage.API_SECRET,
      from: `+${FakeVonage.SENDER}`,
      ...overrides,
    };
  }

  readonly handle: FakeHandler = (request, response, body) => {
    if (this.misbehaviour) {
      misbehave(response, this.misbehaviour.kind, this.misbehaviour.status);
      return;
    }
    if (this.failWith) {
      sendJson(response, this.failWith, { title: 'Server error', detail: 'Asked of the fake' });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://vonage');
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /account/get-balance') {
      this.getBalance(url.searchParams, response);
    } else if (route === 'POST /sms/json') {
      this.sendSms(request, response, body);
    } else {
      sendJson(response, 404, { title: 'Not found' });
    }
  };

  private authorised(params: { get(name: string): string | null | undefined }): boolean {
    return (
      params.get('api_key') === FakeVonage.API_KEY &&
      params.get('api_secret') === FakeVonage.API_SECRET
    );
  }

  private getBalance(query: URLSearchParams, response: ServerResponse): void {
    if (!this.authorised(query)) {
      sendJson(response, 401, {
        type: 'https://developer.nexmo.com/api-errors#unauthorized',
        title: 'Invalid credentials supplied',
        detail: 'You did not provide correct credentials.',
      });
      return;
    }
    sendJson(response, 200, { value: this.balance, autoReload: this.autoReload });
  }

  private sendSms(request: IncomingMessage, response: ServerResponse, body: string): void {
    const type = request.headers['content-type'] ?? '';
    const params = new Map<string, string>();
    if (type.startsWith('application/x-www-form-urlencoded')) {
      new URLSearchParams(body).forEach((value, name) => params.set(name, value));
    } else if (type.startsWith('application/json')) {
      const json = parseJson(body);
      for (const [name, value] of Object.entries((json ?? {}) as Record<string, unknown>)) {
        params.set(name, String(value));
      }
    }
    const refuse = (status: string, errorText: string) =>
      sendJson(response, 200, {
        'message-count': '1',
        messages: [{ status, 'error-text': errorText }],
      });
    for (const name of ['api_key', 'api_secret', 'from', 'to', 'text']) {
      if (!params.get(name)) {
        refuse('2', `Missing ${name}`);
        return;
      }
    }
    if (!this.authorised(params)) {
      refuse('4', 'Bad Credentials');
      return;
    }
    this.sent.push(Object.fromEntries(params));
    const to = params.get('to') ?? '';
    const from = params.get('from') ?? '';
    const forced = this.sendStatuses.shift();
    if (forced === '1') {
      refuse('1', 'Throughput Rate Exceeded - please wait [ 1000 ] and retry');
    } else if (forced) {
      refuse(forced, `Status ${forced} asked of the fake`);
    } else if (!/^[1-9]\d{6,14}$/.test(to)) {
      refuse('3', 'Invalid to param');
    } else if (from !== FakeVonage.SENDER && !/^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(from)) {
      refuse('15', 'Illegal Sender Address - rejected');
    } else if (this.balance <= 0) {
      refuse('9', 'Partner quota exceeded');
    } else {
      const unicode = params.get('type') === 'unicode';
      const single = unicode ? 70 : 160;
      const part = unicode ? 67 : 153;
      const length = [...(params.get('text') ?? '')].length;
      const count = length <= single ? 1 : Math.ceil(length / part);
      sendJson(response, 200, {
        'message-count': String(count),
        messages: Array.from({ length: count }, () => ({
          to,
          'message-id': (this.nextId++).toString(16).toUpperCase().padStart(16, '0'),
          status: '0',
          'remaining-balance': String(this.balance),
          'message-price': '0.03330000',
          network: '23410',
        })),
      });
    }
  }
}

/** A fake Vonage on 127.0.0.1; `server.url` is the value for VONAGE_API_URL. */
export async function startFakeVonage(): Promise<{ fake: FakeVonage; server: FakeServer }> {
  const fake = new FakeVonage();
  return { fake, server: await startFakeServer(fake.handle) };
}
