import { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../src/adapters/provider-http';
import { FakeHandler, FakeServer, sendJson, startFakeServer } from './adapters.factories';

export interface FakeOctopushCall {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The request body as sent. */
  body: string;
}

/**
 * Octopush's public API (v1) as documented: every request names the account with the
 * `api-login` and `api-key` headers, JSON both ways, errors as `{code, message}` with a 4xx.
 * A campaign is checked as Octopush checks it: text, recipients in E.164, a known `type` and
 * `purpose`, a sender of 3 to 11 letters or digits.
 */
export class FakeOctopush {
  static readonly LOGIN = 'mail@example.com';
  static readonly API_KEY = '4Vnc9rDqFcJxp6ywBMtIydtFEsQ0J13RXG8Ms96F';

  readonly calls: FakeOctopushCall[] = [];
  /** Campaigns accepted or not, as posted. */
  readonly campaigns: Array<Record<string, unknown>> = [];
  balance = 12.5;
  /** What a request answers instead of its documented answer, when set. */
  reply: ((call: FakeOctopushCall) => { status: number; body: unknown } | null) | null = null;
  private nextTicket = 1;

  /** The data of a phone using this fake's account. */
  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return { login: FakeOctopush.LOGIN, api_key: FakeOctopush.API_KEY, ...overrides };
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
    if (!request.headers['api-login'] || !request.headers['api-key']) {
      sendJson(response, 401, { code: 100, message: 'api-login and api-key headers are required' });
      return;
    }
    if (
      request.headers['api-login'] !== FakeOctopush.LOGIN ||
      request.headers['api-key'] !== FakeOctopush.API_KEY
    ) {
      sendJson(response, 401, { code: 101, message: 'Invalid api-login or api-key' });
      return;
    }
    const route = `${call.method} ${call.path}`;
    if (route === 'GET /wallet/check-balance') {
      sendJson(response, 200, { amount: this.balance, unit: 'credit' });
    } else if (route === 'POST /sms-campaign/send') {
      this.campaign(request, response, body);
    } else {
      sendJson(response, 404, { code: 404, message: 'Route not found' });
    }
  };

  private campaign(request: IncomingMessage, response: ServerResponse, body: string): void {
    if (!String(request.headers['content-type']).startsWith('application/json')) {
      sendJson(response, 400, { code: 103, message: 'The body must be JSON' });
      return;
    }
    const campaign = parseJson(body) as Record<string, unknown> | null | undefined;
    if (!campaign || typeof campaign !== 'object') {
      sendJson(response, 400, { code: 103, message: 'The body must be JSON' });
      return;
    }
    this.campaigns.push(campaign);
    const problem = campaignProblem(campaign);
    if (problem) {
      sendJson(response, 400, { code: problem.code, message: problem.message });
      return;
    }
    if (this.balance <= 0) {
      sendJson(response, 400, { code: 113, message: 'Not enough credit' });
      return;
    }
    sendJson(response, 200, {
      sms_ticket: `sms_${String(this.nextTicket++).padStart(13, '0')}`,
      number_of_contacts: 1,
      total_cost: 0.045,
      number_of_sms_needed: 1,
      residual_credit: this.balance,
    });
  }
}

function campaignProblem(
  campaign: Record<string, unknown>,
): { code: number; message: string } | null {
  const { text, recipients, type, purpose, sender, with_replies } = campaign;
  if (typeof text !== 'string' || text.length < 1 || text.length > 1224) {
    return { code: 104, message: 'text must be 1 to 1224 characters' };
  }
  if (
    !Array.isArray(recipients) ||
    recipients.length === 0 ||
    !recipients.every((recipient: unknown) =>
      /^\+[1-9]\d{6,14}$/.test(String((recipient as { phone_number?: unknown })?.phone_number)),
    )
  ) {
    return { code: 105, message: 'recipients must hold phone numbers in international format' };
  }
  if (type !== 'sms_low_cost' && type !== 'sms_premium') {
    return { code: 106, message: 'type must be sms_low_cost or sms_premium' };
  }
  if (purpose !== undefined && purpose !== 'alert' && purpose !== 'wholesale') {
    return { code: 107, message: 'purpose must be alert or wholesale' };
  }
  if (
    sender !== undefined &&
    (typeof sender !== 'string' || !/^(?:[A-Za-z0-9]{3,11}|\+[1-9]\d{6,14})$/.test(sender))
  ) {
    return { code: 108, message: 'sender must be 3 to 11 letters or digits' };
  }
  if (with_replies !== undefined && typeof with_replies !== 'boolean') {
    return { code: 109, message: 'with_replies must be a boolean' };
  }
  return null;
}

/** A fake Octopush API on 127.0.0.1; `apiUrl` is the value for OCTOPUSH_API_URL. */
export async function startFakeOctopush(): Promise<{
  fake: FakeOctopush;
  server: FakeServer;
  apiUrl: string;
}> {
  const fake = new FakeOctopush();
  const server = await startFakeServer(fake.handle);
  return { fake, server, apiUrl: server.url };
}
