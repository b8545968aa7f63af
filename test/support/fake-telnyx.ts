import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../src/adapters/provider-http';
import { FakeHandler, FakeServer, sendJson, startFakeServer } from './adapters.factories';
import { Misbehaviour, misbehave } from './fake-misbehaviour';

/**
 * Telnyx's API v2 as documented: `Authorization: Bearer <API key>`, else HTTP 401 with error
 * 10009; `GET /v2/balance`; `POST /v2/messages` with a JSON body (`from`, `to`, `text` or
 * `media_urls`, optional `messaging_profile_id` and `webhook_url`), answered with the message
 * in `data` or with `errors[]` (`code`, `title`, `detail`, `source`); HTTP 429 with error
 * 10011 when throttled.
 */
export class FakeTelnyx {
  static readonly API_KEY = 'KEY0123456789ABCDEF_fakeTelnyxKey';
  static readonly NUMBER = '+33612345678';
  static readonly PROFILE = '40017b37-1234-4c4a-9b1e-000000000001';

  availableCredit = '42.50';
  /** A misbehaviour for every request, with the HTTP status it answers with. */
  misbehaviour: { kind: Misbehaviour; status?: number } | null = null;
  /** Answers every authenticated request with this HTTP status and Telnyx's error body. */
  failWith: number | null = null;
  /** Answers every request with this documented refusal (HTTP status, error code, title). */
  refuseWith: { status: number; code: string; title: string } | null = null;
  /** Bodies of the messages created. */
  readonly created: Array<Record<string, unknown>> = [];

  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return { api_key: FakeTelnyx.API_KEY, from: FakeTelnyx.NUMBER, ...overrides };
  }

  readonly handle: FakeHandler = (request, response, body) => {
    if (this.misbehaviour) {
      misbehave(response, this.misbehaviour.kind, this.misbehaviour.status);
      return;
    }
    if (request.headers.authorization !== `Bearer ${FakeTelnyx.API_KEY}`) {
      errors(
        response,
        401,
        '10009',
        'Authentication failed',
        'Could not understand the provided credentials.',
      );
      return;
    }
    if (this.failWith === 429) {
      errors(response, 429, '10011', 'Too many requests', 'Rate limit exceeded, slow down.');
      return;
    }
    if (this.refuseWith) {
      const { status, code, title } = this.refuseWith;
      errors(response, status, code, title, `${title} (asked of the fake).`);
      return;
    }
    if (this.failWith) {
      errors(response, this.failWith, '10007', 'Unexpected error', 'An unexpected error occured.');
      return;
    }
    const route = `${request.method} ${new URL(request.url ?? '/', 'http://telnyx').pathname}`;
    if (route === 'GET /v2/balance') {
      sendJson(response, 200, {
        data: {
          record_type: 'balance',
          balance: this.availableCredit,
          credit_limit: '0.00',
          available_credit: this.availableCredit,
          pending: '0.00',
          currency: 'USD',
        },
      });
    } else if (route === 'POST /v2/messages') {
      this.createMessage(request, response, body);
    } else {
      errors(
        response,
        404,
        '10005',
        'Resource not found',
        'The requested resource or URL could not be found.',
      );
    }
  };

  private createMessage(request: IncomingMessage, response: ServerResponse, body: string): void {
    const json = parseJson(body);
    if (
      !(request.headers['content-type'] ?? '').startsWith('application/json') ||
      !json ||
      typeof json !== 'object'
    ) {
      errors(response, 400, '10015', 'Bad Request', 'The request body is not valid JSON.');
      return;
    }
    const message = json as Record<string, unknown>;
    this.created.push(message);
    const { from, to, text, media_urls: media, messaging_profile_id: profile } = message;
    const alphanumeric =
      typeof from === 'string' && /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(from);
    if (typeof to !== 'string' || !/^\+[1-9]\d{6,14}$/.test(to)) {
      errors(
        response,
        400,
        '40310',
        "Invalid 'to' address",
        "The 'to' address should be in +E.164 format.",
        '/to',
      );
    } else if (from !== FakeTelnyx.NUMBER && !(alphanumeric && profile === FakeTelnyx.PROFILE)) {
      errors(
        response,
        400,
        '40305',
        "Invalid 'from' address",
        "The 'from' address is not a number or alphanumeric sender of this account.",
        '/from',
      );
    } else if ((typeof text !== 'string' || !text) && !Array.isArray(media)) {
      errors(
        response,
        400,
        '40003',
        'Parameter missing',
        "Either 'text' or 'media_urls' is required.",
        '/text',
      );
    } else {
      sendJson(response, 200, {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id: randomUUID(),
          type: Array.isArray(media) ? 'MMS' : 'SMS',
          messaging_profile_id: profile ?? FakeTelnyx.PROFILE,
          from: { phone_number: from },
          to: [{ phone_number: to, status: 'queued' }],
          text,
          webhook_url: message.webhook_url ?? null,
          parts: 1,
        },
      });
    }
  }
}

function errors(
  response: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
  pointer?: string,
): void {
  sendJson(response, status, {
    errors: [
      {
        code,
        title,
        detail,
        ...(pointer ? { source: { pointer } } : {}),
        meta: { url: `https://developers.telnyx.com/docs/overview/errors/${code}` },
      },
    ],
  });
}

/** A fake Telnyx on 127.0.0.1; `server.url` is the value for TELNYX_API_URL. */
export async function startFakeTelnyx(): Promise<{ fake: FakeTelnyx; server: FakeServer }> {
  const fake = new FakeTelnyx();
  return { fake, server: await startFakeServer(fake.handle) };
}
