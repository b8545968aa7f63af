import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import {
  FakeServer,
  adapterConfig,
  closedPort,
  sendJson,
  startFakeServer,
  startSilentServer,
  outgoingSms,
} from '../../../test/support/adapters.factories';
import { CallbackRequest, OutgoingSms } from '../adapter';
import { MAX_EXCERPT_CHARS } from '../../common/net/http-answers';
import { TwilioAdapter } from './twilio.adapter';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'the-auth-token';
const NUMBER = '+33612345678';
const DATA = { account_sid: SID, auth_token: TOKEN, number: NUMBER };
const MESSAGE_SID = 'SM0123456789abcdef0123456789abcdef';
const CALLBACK = 'https://sms.example.org/callback/status/twilio/?api_key=k';

/**
 * Twilio's REST API as documented: HTTP Basic with the account SID and auth token, the
 * IncomingPhoneNumbers list filtered by PhoneNumber, the Account resource, and Messages
 * created by a form POST answered with 201 and the Message, or with Twilio's error body
 * `{code, message, more_info, status}`.
 */
class FakeTwilio {
  accountStatus = 'active';
  numbers = [NUMBER, '+33699999999'];
  failWith: number | null = null;
  /** A canned answer to message creations only: status and raw body. */
  sendAnswer: { status: number; body: string } | null = null;
  /** The form of each message creation that passed authentication. */
  readonly created: URLSearchParams[] = [];

  readonly handle = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    const url = new URL(request.url ?? '/', 'http://twilio');
    if (this.failWith) {
      sendJson(response, this.failWith, { code: 20500, message: 'Internal Server Error' });
      return;
    }
    const expected = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      sendJson(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
      return;
    }
    const path = `${request.method} ${url.pathname}`;
    if (path === `POST /2010-04-01/Accounts/${SID}/Messages.json`) {
      this.createMessage(request, response, body);
      return;
    }
    if (path === `GET /2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
      const wanted = url.searchParams.get('PhoneNumber');
      const numbers = this.numbers.filter((number) => number === wanted);
      sendJson(response, 200, {
        incoming_phone_numbers: numbers.map((number) => ({ phone_number: number, sid: 'PN1' })),
        page: 0,
      });
      return;
    }
    if (path === `GET /2010-04-01/Accounts/${SID}.json`) {
      sendJson(response, 200, { sid: SID, status: this.accountStatus });
      return;
    }
    sendJson(response, 404, { code: 20404, message: 'The requested resource was not found' });
  };

  private createMessage(request: IncomingMessage, response: ServerResponse, body: string): void {
    if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') {
      sendJson(response, 400, { code: 20001, message: 'Unsupported content type', status: 400 });
      return;
    }
    const form = new URLSearchParams(body);
    this.created.push(form);
    if (this.sendAnswer) {
      response.writeHead(this.sendAnswer.status, { 'Content-Type': 'application/json' });
      response.end(this.sendAnswer.body);
      return;
    }
    const to = form.get('To') ?? '';
    const error = (code: number, message: string) =>
      sendJson(response, 400, {
        code,
        message,
        more_info: `https://www.twilio.com/docs/errors/${code}`,
        status: 400,
      });
    if (!/^\+[1-9]\d{7,14}$/.test(to)) {
      error(21211, `The 'To' number ${to} is not a valid phone number.`);
    } else if (!this.numbers.includes(form.get('From') ?? '')) {
      error(21606, 'The From phone number is not a valid, SMS-capable inbound phone number.');
    } else if (!form.get('Body') && !form.has('MediaUrl')) {
      error(21602, 'Message body is required.');
    } else {
      sendJson(response, 201, {
        sid: MESSAGE_SID,
        account_sid: SID,
        to,
        from: form.get('From'),
        body: form.get('Body') ?? '',
        status: 'queued',
        num_media: String(form.getAll('MediaUrl').length),
        error_code: null,
      });
    }
  }
}

const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms =>
  outgoingSms({ destination: '+33655555555', text: 'Hello there', ...overrides });

const callback = (overrides: Partial<CallbackRequest> = {}): CallbackRequest => ({
  method: 'POST',
  url: 'https://sms.example.org/callback/status/twilio/?api_key=k',
  headers: {},
  query: {},
  form: {},
  rawBody: '',
  ...overrides,
});

/** X-Twilio-Signature as Twilio's security docs describe it, written apart from the adapter's. */
function twilioSignature(token: string, url: string, form: Record<string, string> = {}): string {
  let payload = url;
  for (const name of Object.keys(form).sort()) {
    payload += name + form[name];
  }
  return createHmac('sha1', token).update(payload, 'utf8').digest('base64');
}

describe('TwilioAdapter', () => {
  let fake: FakeTwilio;
  let server: FakeServer;
  let adapter: TwilioAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    fake = new FakeTwilio();
    server = await startFakeServer(fake.handle);
    adapter = new TwilioAdapter(adapterConfig({ TWILIO_API_URL: server.url }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  describe('test', () => {
    it('accepts credentials whose account owns the number', async () => {
      expect(await adapter.test(DATA)).toBeNull();
    });

    it('reports refused credentials, naming the fields to check', async () => {
      expect(await adapter.test({ ...DATA, auth_token: 'wrong' })).toBe(
        'Twilio refused the credentials (HTTP 401): check account_sid and auth_token.',
      );
    });

    it('reports an unknown account_sid as refused credentials, as Twilio does', async () => {
      expect(await adapter.test({ ...DATA, account_sid: 'AC404' })).toBe(
        'Twilio refused the credentials (HTTP 401): check account_sid and auth_token.',
      );
    });

    it('reports a number the account does not own', async () => {
      expect(await adapter.test({ ...DATA, number: '+33700000000' })).toBe(
        'The number +33700000000 is not a phone number of this Twilio account: check number.',
      );
    });

    it('reports a failing Twilio', async () => {
      fake.failWith = 503;

      expect(await adapter.test(DATA)).toBe(
        'Twilio answered HTTP 503: it is failing on its side, try again later.',
      );
    });

    it('reports a Twilio it cannot connect to, without throwing', async () => {
      const port = await closedPort();
      const offline = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: `http://127.0.0.1:${port}` }),
      );

      expect(await offline.test(DATA)).toBe(
        `Could not reach Twilio at http://127.0.0.1:${port} (connection refused).`,
      );
    });

    it('gives up on a Twilio that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.test(DATA)).toBe(
          `Could not reach Twilio at ${silent.url} within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });

    it('names a missing required field before calling Twilio', async () => {
      fake.failWith = 500;

      expect(await adapter.test({ account_sid: SID, number: NUMBER })).toBe(
        'auth_token is required.',
      );
    });
  });

  describe('checkStatus', () => {
    it('reports an active account as available', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
    });

    it.each(['suspended', 'closed'])('reports a %s account as unavailable', async (status) => {
      fake.accountStatus = status;

      expect(await adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...DATA, auth_token: 'wrong' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toMatch(/wrong|the-auth-token/);
    });

    it('reports a failing Twilio as unavailable', async () => {
      fake.failWith = 500;

      expect(await adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports an unreachable Twilio as unavailable', async () => {
      const port = await closedPort();
      const offline = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: `http://127.0.0.1:${port}` }),
      );

      expect(await offline.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports a Twilio that never answers as unavailable', async () => {
      const silent = await startSilentServer();
      const hanging = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.checkStatus(DATA)).toBe('unavailable');
      } finally {
        await silent.close();
      }
    });
  });
  describe('send', () => {
    it('posts To, From, Body and StatusCallback with Basic auth and gives the message sid', async () => {
      const data = { ...DATA, status_change_callback: CALLBACK };

      expect(await adapter.send(data, sms())).toEqual({ outcome: 'sent', uid: MESSAGE_SID });
      expect(fake.created.map((form) => [...form])).toEqual([
        [
          ['To', '+33655555555'],
          ['From', NUMBER],
          ['Body', 'Hello there'],
          ['StatusCallback', CALLBACK],
        ],
      ]);
    });

    it.each([
      [299, '299'],
      [0, '1'],
      [604_800, '36000'],
    ])(
      'passes %p seconds of validity left as ValidityPeriod %p, within 1 to 36000',
      async (seconds, sent) => {
        await adapter.send(DATA, sms({ validitySeconds: seconds }));

        expect(fake.created[0].get('ValidityPeriod')).toBe(sent);
      },
    );

    it('sends no ValidityPeriod for a message without validity', async () => {
      await adapter.send(DATA, sms({ validitySeconds: null }));

      expect(fake.created[0].has('ValidityPeriod')).toBe(false);
    });

    it('sends text that is not GSM-7 as it is', async () => {
      await adapter.send(DATA, sms({ text: 'Ça va ? 日本 & =' }));

      expect(fake.created[0].get('Body')).toBe('Ça va ? 日本 & =');
    });

    it('asks for no status callback when the phone has neither status_change_callback nor its own URLs', async () => {
      await adapter.send(DATA, sms());

      expect(fake.created[0].has('StatusCallback')).toBe(false);
    });

    it("asks for the phone's own receipt URL, unless status_change_callback names another", async () => {
      const callbackUrls = {
        status: 'https://sms.example.org/callback/phone/status/?callback_token=tok',
        reception: 'https://sms.example.org/callback/phone/reception/?callback_token=tok',
      };

      await adapter.send(DATA, sms({ callbackUrls }));
      await adapter.send({ ...DATA, status_change_callback: CALLBACK }, sms({ callbackUrls }));

      expect(fake.created.map((form) => form.get('StatusCallback'))).toEqual([
        callbackUrls.status,
        CALLBACK,
      ]);
    });

    it('sends medias as an MMS, one MediaUrl each, and cannot send flash', async () => {
      const medias = [
        {
          path: '1/a.jpg',
          mimetype: 'image/jpeg',
          url: 'https://sms.example.org/data/public/1/a.jpg',
        },
        {
          path: '1/b.png',
          mimetype: 'image/png',
          url: 'https://sms.example.org/data/public/1/b.png',
        },
      ];

      expect(adapter.capabilities).toEqual({ flash: false, mms: true });
      expect(await adapter.send(DATA, sms({ medias }))).toEqual({
        outcome: 'sent',
        uid: MESSAGE_SID,
      });
      expect(fake.created[0].getAll('MediaUrl')).toEqual(medias.map((media) => media.url));
    });

    it('leaves out an empty Body when medias are sent, as Twilio allows', async () => {
      const medias = [{ path: 'a.jpg', mimetype: null, url: 'https://sms.example.org/a.jpg' }];

      expect((await adapter.send(DATA, sms({ text: '', medias }))).outcome).toBe('sent');
      expect(fake.created[0].has('Body')).toBe(false);
    });

    it('refuses for good with refused credentials, naming the fields to check', async () => {
      expect(await adapter.send({ ...DATA, auth_token: 'wrong' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Twilio refused the credentials (HTTP 401): check account_sid and auth_token.',
        cause: 'phone',
      });
    });

    it('refuses for good when Twilio forbids the request', async () => {
      fake.sendAnswer = {
        status: 403,
        body: JSON.stringify({ code: 20003, message: 'Permission Denied', status: 403 }),
      };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Twilio refused the credentials (HTTP 403): check account_sid and auth_token.',
        cause: 'phone',
      });
    });

    it("refuses for good an invalid destination, with Twilio's message and error code", async () => {
      expect(await adapter.send(DATA, sms({ destination: '+1234' }))).toEqual({
        outcome: 'permanent',
        reason:
          "Twilio refused the message (error 21211): The 'To' number +1234 is not a valid phone number.",
        cause: 'recipient',
      });
    });

    it('refuses for good a number the account cannot send from', async () => {
      expect(await adapter.send({ ...DATA, number: '+33700000000' }, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'Twilio refused the message (error 21606): The From phone number is not a valid, SMS-capable inbound phone number.',
        cause: 'phone',
      });
    });

    it('ends the quoted Twilio message with a full stop', async () => {
      fake.sendAnswer = {
        status: 400,
        body: JSON.stringify({ code: 21610, message: 'Attempt to send to unsubscribed recipient' }),
      };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'Twilio refused the message (error 21610): Attempt to send to unsubscribed recipient.',
        cause: 'recipient',
      });
    });

    // Each refusal Twilio documents, and whose it is (docs/adapters.md#refusals).
    it.each<[number, number, string, 'recipient' | 'phone']>([
      [400, 21211, "The 'To' number is not a valid phone number", 'recipient'],
      [400, 21610, 'Attempt to send to unsubscribed recipient', 'recipient'],
      [400, 21614, "'To' number is not a valid mobile number", 'recipient'],
      [400, 21408, 'Permission to send an SMS has not been enabled for the region', 'recipient'],
      [401, 20003, 'Authenticate', 'phone'],
      [403, 20003, 'Permission Denied', 'phone'],
      [401, 20005, 'Account not active', 'phone'],
      [400, 21212, "The 'From' number is not a valid phone number", 'phone'],
      [
        400,
        21606,
        "The 'From' phone number provided is not a valid message-capable phone number",
        'phone',
      ],
      [400, 21659, 'Source number is not a Twilio phone number', 'phone'],
      [403, 30002, 'Account suspended', 'phone'],
    ])(
      'classifies HTTP %i error %i (%s) as the %s refusing',
      async (status, code, message, cause) => {
        fake.sendAnswer = { status, body: JSON.stringify({ code, message, status }) };

        expect(await adapter.send(DATA, sms())).toMatchObject({ outcome: 'permanent', cause });
      },
    );

    /** `start` then `filler` up to the excerpt's length, the last character an ellipsis. */
    const cut = (start: string, filler: string) =>
      `${start}${filler.repeat(MAX_EXCERPT_CHARS - 1 - start.length)}…`;

    it("quotes at most an excerpt of Twilio's message, on one line", async () => {
      const long = `Invalid\r\nparameter ${'x'.repeat(5000)}`;
      fake.sendAnswer = { status: 400, body: JSON.stringify({ code: 21211, message: long }) };
      const retried = { code: 20429, message: `Slow down\n${'y'.repeat(5000)}` };

      const refused = await adapter.send(DATA, sms());
      fake.sendAnswer = { status: 429, body: JSON.stringify(retried) };
      const throttled = await adapter.send(DATA, sms());

      expect(refused).toEqual({
        outcome: 'permanent',
        reason: `Twilio refused the message (error 21211): ${cut('Invalid parameter ', 'x')}.`,
        cause: 'recipient',
      });
      expect(throttled).toEqual({
        outcome: 'transient',
        reason: `Twilio could not take the message now (HTTP 429, error 20429: ${cut('Slow down ', 'y')}): try again later.`,
      });
    });

    it('refuses for good a 4xx that is not a Twilio error', async () => {
      fake.sendAnswer = { status: 400, body: '<html>Bad Request</html>' };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Twilio answered HTTP 400, which smsgw does not expect: check the adapter data.',
        cause: 'recipient',
      });
    });

    it('retries later when Twilio throttles (HTTP 429, error 20429)', async () => {
      fake.sendAnswer = {
        status: 429,
        body: JSON.stringify({ code: 20429, message: 'Too Many Requests', status: 429 }),
      };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'transient',
        reason:
          'Twilio could not take the message now (HTTP 429, error 20429: Too Many Requests): try again later.',
      });
    });

    it('retries later on error 20429 whatever the HTTP status', async () => {
      fake.sendAnswer = {
        status: 400,
        body: JSON.stringify({ code: 20429, message: 'Too Many Requests' }),
      };

      expect((await adapter.send(DATA, sms())).outcome).toBe('transient');
    });

    it('retries later when Twilio fails on its side', async () => {
      fake.failWith = 503;

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'transient',
        reason:
          'Twilio could not take the message now (HTTP 503, error 20500: Internal Server Error): try again later.',
      });
    });

    it('does not send again what a failing gateway (502, an HTML page) may have passed on', async () => {
      fake.sendAnswer = { status: 502, body: '<html>Bad Gateway</html>' };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'ambiguous',
        reason: `Twilio answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    it('does not retry a success without a sid, which may have been sent', async () => {
      fake.sendAnswer = { status: 201, body: '{"status":"queued"}' };

      expect(await adapter.send(DATA, sms())).toEqual({
        outcome: 'ambiguous',
        reason:
          'Twilio answered HTTP 201 without a message sid: check the message in the Twilio console before sending it again.',
      });
    });

    it('retries later a Twilio it cannot connect to', async () => {
      const port = await closedPort();
      const offline = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: `http://127.0.0.1:${port}` }),
      );

      expect(await offline.send(DATA, sms())).toEqual({
        outcome: 'transient',
        reason: `Could not reach Twilio at http://127.0.0.1:${port} (connection refused).`,
      });
    });

    it('does not send again what Twilio did not answer within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = new TwilioAdapter(
        adapterConfig({ TWILIO_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.send(DATA, sms())).toEqual({
          outcome: 'ambiguous',
          reason: `Could not reach Twilio at ${silent.url} within 200 ms. ${MAY_HAVE_BEEN_SENT}`,
        });
      } finally {
        await silent.close();
      }
    });

    it('refuses for good, without calling Twilio, when a required field is missing', async () => {
      expect(await adapter.send({ account_sid: SID, number: NUMBER }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'auth_token is required.',
        cause: 'phone',
      });
      expect(fake.created).toHaveLength(0);
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['delivered', 'delivered'],
      ['undelivered', 'failed'],
      ['failed', 'failed'],
      ['canceled', 'failed'],
      ['queued', 'unknown'],
      ['sending', 'unknown'],
      ['sent', 'unknown'],
      ['accepted', 'unknown'],
      ['scheduled', 'unknown'],
    ])('reads MessageStatus %s as %s', (reported, status) => {
      const form = { MessageSid: MESSAGE_SID, MessageStatus: reported, AccountSid: SID };

      expect(adapter.parseStatusCallback(callback({ form }))).toEqual({ uid: MESSAGE_SID, status });
    });

    it('reads the fields of a GET callback from the query', () => {
      const query = { api_key: 'k', MessageSid: MESSAGE_SID, MessageStatus: 'delivered' };

      expect(adapter.parseStatusCallback(callback({ method: 'GET', query }))).toEqual({
        uid: MESSAGE_SID,
        status: 'delivered',
      });
    });

    it.each<Record<string, string>>([
      { MessageStatus: 'delivered' },
      { MessageSid: MESSAGE_SID },
      {},
    ])('is not a receipt without both MessageSid and MessageStatus: %p', (form) => {
      expect(adapter.parseStatusCallback(callback({ form }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    const inbound = { MessageSid: MESSAGE_SID, AccountSid: SID, To: NUMBER, NumMedia: '0' };

    it('reads From and Body, the origin in E.164, received now', () => {
      const form = { ...inbound, From: '+33 6 55 55 55 55', Body: 'Stop' };

      expect(adapter.parseReceptionCallback(callback({ form }))).toEqual({
        origin: '+33655555555',
        text: 'Stop',
        at: null,
      });
    });

    it('keeps an origin that is not a phone number as Twilio gave it', () => {
      const form = { ...inbound, From: 'ACME', Body: 'Hi' };

      expect(adapter.parseReceptionCallback(callback({ form }))?.origin).toBe('ACME');
    });

    it('takes an empty Body, as Twilio posts for a message of medias only', () => {
      const form = { ...inbound, From: '+33655555555', Body: '' };

      expect(adapter.parseReceptionCallback(callback({ form }))?.text).toBe('');
    });

    it.each<Record<string, string>>([
      { From: '+33655555555', Body: 'Hi' },
      { MessageSid: MESSAGE_SID, Body: 'Hi' },
      { MessageSid: MESSAGE_SID, From: '+33655555555', MessageStatus: 'delivered' },
    ])('is not an inbound message without MessageSid, From and Body: %p', (form) => {
      expect(adapter.parseReceptionCallback(callback({ form }))).toBeNull();
    });
  });

  describe('verifyCallback', () => {
    const url = 'https://sms.example.org/callback/status/twilio/?api_key=k';
    const form = { MessageSid: MESSAGE_SID, MessageStatus: 'delivered', AccountSid: SID };
    const signed = (request: Partial<CallbackRequest> = {}): CallbackRequest => {
      const method = request.method ?? 'POST';
      const fields = method === 'POST' ? (request.form ?? form) : {};
      return callback({
        url,
        form,
        ...request,
        headers: { 'x-twilio-signature': twilioSignature(TOKEN, request.url ?? url, fields) },
      });
    };

    it("accepts the example of Twilio's request validation docs", () => {
      const example = callback({
        url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
        form: {
          CallSid: 'CA1234567890ABCDE',
          Caller: '+14158675309',
          Digits: '1234',
          From: '+14158675309',
          To: '+18005551212',
        },
        headers: { 'x-twilio-signature': 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' },
      });

      expect(adapter.verifyCallback(example, { ...DATA, auth_token: '12345' })).toBe(true);
    });

    it('accepts a POST signed over its URL and sorted form fields', () => {
      expect(adapter.verifyCallback(signed(), DATA)).toBe(true);
    });

    it('rejects a POST whose form was changed after signing', () => {
      const request = signed();

      expect(
        adapter.verifyCallback({ ...request, form: { ...form, MessageStatus: 'failed' } }, DATA),
      ).toBe(false);
      expect(adapter.verifyCallback({ ...request, form: { ...form, Extra: '' } }, DATA)).toBe(
        false,
      );
    });

    it('rejects a request whose URL was changed after signing', () => {
      const request = signed();

      expect(adapter.verifyCallback({ ...request, url: `${url}&api_key=other` }, DATA)).toBe(false);
      expect(
        adapter.verifyCallback({ ...request, url: url.replace('https:', 'http:') }, DATA),
      ).toBe(false);
    });

    it('rejects a request without the signature header', () => {
      expect(adapter.verifyCallback({ ...signed(), headers: {} }, DATA)).toBe(false);
    });

    it('rejects a signature made with another auth token', () => {
      expect(adapter.verifyCallback(signed(), { ...DATA, auth_token: 'another-token' })).toBe(
        false,
      );
    });

    it('accepts a GET signed over its URL alone, whatever body fields it has', () => {
      const query = `${url}&MessageSid=${MESSAGE_SID}&MessageStatus=delivered`;

      expect(adapter.verifyCallback(signed({ method: 'GET', url: query }), DATA)).toBe(true);
    });

    it('accepts a URL signed with its default port written out, as Twilio may sign', () => {
      const request = signed({
        url: 'https://sms.example.org:443/callback/status/twilio/?api_key=k',
      });

      expect(adapter.verifyCallback({ ...request, url }, DATA)).toBe(true);
    });

    it('accepts a URL called with its default port and signed without it', () => {
      const withPort = 'https://sms.example.org:443/callback/status/twilio/?api_key=k';

      expect(adapter.verifyCallback({ ...signed(), url: withPort }, DATA)).toBe(true);
    });

    it('does not take another port for the default one', () => {
      const request = signed({
        url: 'https://sms.example.org:8443/callback/status/twilio/?api_key=k',
      });

      expect(adapter.verifyCallback({ ...request, url }, DATA)).toBe(false);
    });
  });
});
