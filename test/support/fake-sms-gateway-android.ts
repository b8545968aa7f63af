import { createHmac, randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { parseJson } from '../../src/adapters/provider-http';
import { FakeServer, sendJson, startFakeServer } from './adapters.factories';

/*
 * SMS Gateway for Android's API as the app's local server and the cloud server document it
 * (the app's swagger.json, docs.sms-gate.app): Basic auth on every route but /health, unknown
 * routes 404 whatever the credentials, messages posted as JSON and checked as the app checks
 * them, errors as {"message": …}, and webhooks signed as the app signs them.
 */

/** A message as `GET /message/{id}` gives it. */
export interface FakeAndroidMessage {
  id: string;
  deviceId: string;
  state: 'Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';
  isHashed: boolean;
  isEncrypted: boolean;
  recipients: Array<{ phoneNumber: string; state: string }>;
  states: Record<string, string>;
  /** What was posted, for assertions. */
  posted: Record<string, unknown>;
}

/** A way for the fake to misbehave on every authenticated request, instead of answering it. */
export type FakeAndroidFailure =
  { status: number; body?: unknown } | 'html' | 'invalid-json' | 'huge' | 'hang' | 'reset';

export class FakeSmsGatewayAndroid {
  static readonly USERNAME = 'sms';
  static readonly PASSWORD = 'fakePassw0rd';
  static readonly SIGNING_KEY = 'fakeSigningKey01';
  static readonly DEVICE_ID = 'PyDmBQZZXYmyxMwED8Fzy';
  /** E.164, as the app's phone validation wants it. */
  private static readonly PHONE = /^\+[1-9]\d{6,14}$/;

  readonly messages = new Map<string, FakeAndroidMessage>();
  readonly webhooks: Array<{ id: string; url: string; event: string; deviceId: string }> = [];
  /** Requests as received: method, path and Authorization header. */
  readonly calls: Array<{ method: string; path: string; authorization: string | undefined }> = [];
  failure: FakeAndroidFailure | null = null;
  /** Set: the next message is taken, then its connection cut before the answer (once). */
  cutAfterTaking = false;

  /** @param prefix the API's path: '' on the phone, '/3rdparty/v1' on the cloud server. */
  constructor(readonly prefix: string) {}

  /** The data of a phone using this fake's credentials. */
  static data(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      username: FakeSmsGatewayAndroid.USERNAME,
      password: FakeSmsGatewayAndroid.PASSWORD,
      signing_key: FakeSmsGatewayAndroid.SIGNING_KEY,
      ...overrides,
    };
  }

  /**
   * A webhook as the app posts it: the JSON envelope, with X-Signature (hex HMAC-SHA256 of the
   * body then X-Timestamp) under `key`, at `timestamp` (Unix seconds, now by default).
   */
  static webhook(
    event: string,
    payload: Record<string, unknown>,
    key = FakeSmsGatewayAndroid.SIGNING_KEY,
    timestamp = Math.floor(Date.now() / 1000),
  ): { body: string; headers: Record<string, string> } {
    const body = JSON.stringify({
      deviceId: FakeSmsGatewayAndroid.DEVICE_ID,
      event,
      id: randomUUID(),
      payload,
      webhookId: 'fake-webhook',
    });
    const stamp = String(timestamp);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-timestamp': stamp,
        'x-signature': createHmac('sha256', key).update(`${body}${stamp}`).digest('hex'),
      },
    };
  }

  readonly handle = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://fake');
    const authorization = request.headers.authorization;
    this.calls.push({ method, path: url.pathname, authorization });
    if (!url.pathname.startsWith(`${this.prefix}/`)) {
      response.writeHead(404).end();
      return;
    }
    const path = url.pathname.slice(this.prefix.length);
    const [root, id, ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
    if (method === 'GET' && path === '/health') {
      sendJson(response, 200, { status: 'pass', checks: {} });
      return;
    }
    const known =
      ((root === 'message' || root === 'messages') && rest.length === 0) ||
      ((root === 'webhook' || root === 'webhooks') && id === undefined);
    if (!known) {
      response.writeHead(404).end();
      return;
    }
    const expected = Buffer.from(
      `${FakeSmsGatewayAndroid.USERNAME}:${FakeSmsGatewayAndroid.PASSWORD}`,
    ).toString('base64');
    if (authorization !== `Basic ${expected}`) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Access to SMS Gateway"' }).end();
      return;
    }
    if (this.failure) {
      this.fail(this.failure, response);
      return;
    }
    if (root === 'webhook' || root === 'webhooks') {
      this.webhook(method, body, response);
    } else if (method === 'POST' && id === undefined) {
      this.post(body, response);
    } else if (method === 'GET' && id !== undefined) {
      const message = this.messages.get(id);
      if (message) {
        const { posted: _posted, ...shown } = message;
        sendJson(response, 200, shown);
      } else {
        response.writeHead(404).end();
      }
    } else {
      response.writeHead(405).end();
    }
  };

  private post(body: string, response: ServerResponse): void {
    const posted = parseJson(body) as Record<string, unknown> | undefined;
    const refuse = (message: string) => sendJson(response, 400, { message });
    if (!posted || typeof posted !== 'object' || Array.isArray(posted)) {
      refuse('Failed to convert request body to class PostMessageRequest');
      return;
    }
    const { id, message, textMessage, dataMessage, phoneNumbers } = posted;
    const kinds = [message, textMessage, dataMessage].filter(
      (kind) => kind !== null && kind !== undefined,
    );
    if (kinds.length !== 1) {
      refuse('Must specify exactly one of: textMessage, dataMessage, or message');
      return;
    }
    const text = message ?? (textMessage as { text?: unknown } | null)?.text;
    if (typeof text !== 'string' || !text) {
      refuse('Text message is empty');
      return;
    }
    if (!Array.isArray(phoneNumbers) || phoneNumbers.length === 0) {
      refuse('Empty phone numbers list');
      return;
    }
    const invalid = phoneNumbers.find(
      (number) => typeof number !== 'string' || !FakeSmsGatewayAndroid.PHONE.test(number),
    );
    if (invalid !== undefined) {
      refuse(`Invalid phone number: ${String(invalid)}`);
      return;
    }
    if (id !== null && id !== undefined && (typeof id !== 'string' || id.length > 36)) {
      refuse('id must be a string of at most 36 characters');
      return;
    }
    const messageId = typeof id === 'string' && id ? id : randomUUID().slice(0, 21);
    if (this.messages.has(messageId)) {
      sendJson(response, 409, { message: `message with id ${messageId} already exists` });
      return;
    }
    const stored: FakeAndroidMessage = {
      id: messageId,
      deviceId: FakeSmsGatewayAndroid.DEVICE_ID,
      state: 'Pending',
      isHashed: false,
      isEncrypted: false,
      recipients: (phoneNumbers as string[]).map((phoneNumber) => ({
        phoneNumber,
        state: 'Pending',
      })),
      states: {},
      posted,
    };
    this.messages.set(messageId, stored);
    if (this.cutAfterTaking) {
      this.cutAfterTaking = false;
      response.socket?.destroy();
      return;
    }
    const { posted: _posted, ...shown } = stored;
    sendJson(response, 202, shown);
  }

  private webhook(method: string, body: string, response: ServerResponse): void {
    if (method === 'GET') {
      sendJson(response, 200, this.webhooks);
      return;
    }
    const posted = parseJson(body) as { id?: unknown; url?: unknown; event?: unknown } | undefined;
    const events = ['sms:received', 'sms:sent', 'sms:delivered', 'sms:failed', 'system:ping'];
    if (
      method !== 'POST' ||
      typeof posted?.url !== 'string' ||
      !/^https:\/\//.test(posted.url) ||
      typeof posted.event !== 'string' ||
      !events.includes(posted.event)
    ) {
      sendJson(response, 400, { message: 'url must be an https URL and event a known event' });
      return;
    }
    const webhook = {
      id: typeof posted.id === 'string' ? posted.id : randomUUID(),
      url: posted.url,
      event: posted.event,
      deviceId: FakeSmsGatewayAndroid.DEVICE_ID,
    };
    // As the app: a webhook posted with the id of one it has replaces it.
    const existing = this.webhooks.findIndex((known) => known.id === webhook.id);
    if (existing >= 0) {
      this.webhooks.splice(existing, 1);
    }
    this.webhooks.push(webhook);
    sendJson(response, 201, webhook);
  }

  private fail(failure: FakeAndroidFailure, response: ServerResponse): void {
    if (failure === 'hang') {
      return;
    }
    if (failure === 'reset') {
      response.writeHead(202, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      response.write('{"id":"');
      setTimeout(() => response.socket?.destroy(), 20);
      return;
    }
    if (failure === 'html') {
      response.writeHead(502, { 'Content-Type': 'text/html' });
      response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    }
    if (failure === 'invalid-json') {
      response.writeHead(202, { 'Content-Type': 'application/json' });
      response.end('{"id": "abc", "state":');
      return;
    }
    if (failure === 'huge') {
      response.writeHead(202, { 'Content-Type': 'application/json' });
      response.end(`{"id":"${'x'.repeat(3 * 1024 * 1024)}"}`);
      return;
    }
    if (failure.body === undefined) {
      response.writeHead(failure.status).end();
    } else {
      sendJson(response, failure.status, failure.body);
    }
  }
}

/**
 * A fake on 127.0.0.1; `apiUrl` is the API's base URL: a phone's local server (`prefix` '')
 * or the cloud (`prefix` '/3rdparty/v1', the value for SMS_GATEWAY_ANDROID_API_URL).
 */
export async function startFakeSmsGatewayAndroid(prefix = ''): Promise<{
  fake: FakeSmsGatewayAndroid;
  server: FakeServer;
  apiUrl: string;
}> {
  const fake = new FakeSmsGatewayAndroid(prefix);
  const server = await startFakeServer(fake.handle);
  return { fake, server, apiUrl: `${server.url}${prefix}` };
}
