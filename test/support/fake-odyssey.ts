import { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../src/adapters/provider-http';
import { FakeHandler, FakeServer, sendJson, startFakeServer } from './adapters.factories';

export interface FakeOdysseyCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * Odyssey Messaging's REST API as RaspiSMS's adapter uses it: HTTP Basic authentication, JSON
 * both ways, `GET /JobTypes`, and `POST /SMSJobs`, whose recipients' addresses take the 00
 * international prefix; errors as `{Message}` with a 4xx.
 */
export class FakeOdyssey {
  static readonly LOGIN = 'odyssey-login';
  static readonly PASSWORD = 'odyssey-password-1';

  readonly calls: FakeOdysseyCall[] = [];
  readonly jobs: Array<Record<string, unknown>> = [];
  reply: ((call: FakeOdysseyCall) => { status: number; body: unknown } | null) | null = null;
  private nextJob = 900_001;

  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return { login: FakeOdyssey.LOGIN, password: FakeOdyssey.PASSWORD, ...overrides };
  }

  readonly handle: FakeHandler = (request, response, body) => {
    const call = {
      method: request.method ?? '',
      path: request.url ?? '/',
      headers: request.headers,
      body,
    };
    this.calls.push(call);
    const override = this.reply?.(call);
    if (override) {
      sendJson(response, override.status, override.body);
      return;
    }
    const expected = `Basic ${Buffer.from(`${FakeOdyssey.LOGIN}:${FakeOdyssey.PASSWORD}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      response.writeHead(401, {
        'Content-Type': 'application/json',
        'WWW-Authenticate': 'Basic realm="api"',
      });
      response.end(JSON.stringify({ Message: 'Authorization has been denied for this request.' }));
      return;
    }
    const route = `${call.method} ${call.path}`;
    if (route === 'GET /JobTypes') {
      sendJson(response, 200, [{ JobType: 'SMS' }, { JobType: 'EMAIL' }, { JobType: 'VOICE' }]);
    } else if (route === 'POST /SMSJobs') {
      this.job(request, response, body);
    } else {
      sendJson(response, 404, {
        Message: 'No HTTP resource was found that matches the request URI.',
      });
    }
  };

  private job(request: IncomingMessage, response: ServerResponse, body: string): void {
    const job = parseJson(body) as Record<string, unknown> | null | undefined;
    if (!String(request.headers['content-type']).startsWith('application/json') || !job) {
      sendJson(response, 400, { Message: 'The request is invalid.' });
      return;
    }
    this.jobs.push(job);
    const recipients = job.AdhocRecipients;
    const parameter = job.Parameter as { Sender?: unknown } | undefined;
    if (job.JobType !== 'SMS' || typeof job.Text !== 'string' || !job.Text) {
      sendJson(response, 400, { Message: 'JobType SMS and a Text are required.' });
    } else if (
      !Array.isArray(recipients) ||
      recipients.length === 0 ||
      !recipients.every((recipient: unknown) =>
        /^00[1-9]\d{6,14}$/.test(String((recipient as { Address?: unknown })?.Address)),
      )
    ) {
      sendJson(response, 400, { Message: 'Invalid recipient address.' });
    } else if (parameter !== undefined && !/^[A-Za-z0-9]{3,11}$/.test(String(parameter?.Sender))) {
      sendJson(response, 400, { Message: 'Invalid sender.' });
    } else {
      sendJson(response, 200, { JobNumber: this.nextJob++ });
    }
  }
}

/** A fake Odyssey API on 127.0.0.1; `apiUrl` is the value for ODYSSEY_API_URL. */
export async function startFakeOdyssey(): Promise<{
  fake: FakeOdyssey;
  server: FakeServer;
  apiUrl: string;
}> {
  const fake = new FakeOdyssey();
  const server = await startFakeServer(fake.handle);
  return { fake, server, apiUrl: server.url };
}
