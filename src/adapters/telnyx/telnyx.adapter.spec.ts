import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { generateKeyPairSync, sign } from 'node:crypto';
import { adapterConfig, outgoingSms } from '../../../test/support/adapters.factories';
import { FakeTelnyx, startFakeTelnyx } from '../../../test/support/fake-telnyx';
import { CallbackRequest, OutgoingSms } from '../adapter';
import { TelnyxAdapter } from './telnyx.adapter';
import {
  describeProviderTrouble,
  itAsksForStatusesAtThePhoneUrl,
  useFakeProvider,
} from '../../../test/support/provider-trouble';

const keys = generateKeyPairSync('ed25519');
/** The raw 32-byte public key in base64, as Telnyx's portal shows it. */
const PUBLIC_KEY = keys.publicKey
  .export({ format: 'der', type: 'spki' })
  .subarray(12)
  .toString('base64');
const DATA = FakeTelnyx.data({ public_key: PUBLIC_KEY });
const MESSAGE_ID = '40385f64-5717-4562-b3fc-2c963f66afa6';

const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms =>
  outgoingSms({ destination: '+33655555555', text: 'Hello there', ...overrides });

/** A Telnyx webhook event as its docs show one. */
function event(type: string, payload: Record<string, unknown>): string {
  return JSON.stringify({
    data: {
      event_type: type,
      id: 'b301ed3f-1490-491f-995f-6e64e69674d4',
      occurred_at: '2026-11-24T12:00:00.000+00:00',
      payload: { record_type: 'message', ...payload },
      record_type: 'event',
    },
    meta: { attempt: 1, delivered_to: 'https://sms.example.org/callback/status/telnyx/?api_key=k' },
  });
}

const finalized = (status: string, type = 'message.finalized') =>
  event(type, {
    id: MESSAGE_ID,
    direction: 'outbound',
    from: { phone_number: FakeTelnyx.NUMBER },
    to: [{ phone_number: '+33655555555', status }],
    text: 'Hello there',
  });

const RECEIVED = event('message.received', {
  id: 'c8d2a1f0-0000-4000-8000-000000000001',
  direction: 'inbound',
  from: { phone_number: '+33687654321', carrier: 'Orange', line_type: 'Wireless' },
  to: [{ phone_number: FakeTelnyx.NUMBER, status: 'webhook_delivered' }],
  text: 'Hi from a phone',
  received_at: '2026-11-24T11:59:58.123+00:00',
});

/** A callback as smsgw reads it, signed as Telnyx signs: Ed25519 over `timestamp|body`. */
function callback(
  rawBody: string,
  options: {
    timestamp?: number;
    signWith?: typeof keys.privateKey;
    headers?: Record<string, string>;
  } = {},
): CallbackRequest {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = sign(
    null,
    Buffer.from(`${timestamp}|${rawBody}`),
    options.signWith ?? keys.privateKey,
  );
  return {
    method: 'POST',
    url: 'https://sms.example.org/callback/status/telnyx/?api_key=k',
    headers: {
      'content-type': 'application/json',
      'telnyx-timestamp': timestamp,
      'telnyx-signature-ed25519': signature.toString('base64'),
      ...options.headers,
    },
    query: { api_key: 'k' },
    form: {},
    rawBody,
  };
}

describe('TelnyxAdapter', () => {
  const telnyx = useFakeProvider(
    'Telnyx',
    DATA,
    startFakeTelnyx,
    (url, env) => new TelnyxAdapter(adapterConfig({ TELNYX_API_URL: url, ...env })),
  );

  describeProviderTrouble(telnyx, {
    statusKinds: ['html', 'invalid-json', 'hang', 'reset'],
    sms,
    unreadable:
      'Telnyx answered HTTP 200 without a message id: check the message in the Telnyx portal before sending it again.',
  });

  describe('test', () => {
    it('accepts an API key Telnyx takes', async () => {
      expect(await telnyx.adapter.test(DATA)).toBeNull();
    });

    it('reports a refused API key', async () => {
      expect(await telnyx.adapter.test({ ...DATA, api_key: 'KEYwrong' })).toBe(
        'Telnyx refused the API key (HTTP 401): check api_key.',
      );
    });

    it('asks for a messaging profile with an alphanumeric sender', async () => {
      expect(await telnyx.adapter.test({ ...DATA, from: 'Acme' })).toEqual({
        field: 'messaging_profile_id',
        reason: 'is required by Telnyx to send from an alphanumeric sender.',
      });
      expect(
        await telnyx.adapter.test({
          ...DATA,
          from: 'Acme',
          messaging_profile_id: FakeTelnyx.PROFILE,
        }),
      ).toBeNull();
    });

    it('takes a short code without a messaging profile', async () => {
      expect(await telnyx.adapter.test({ ...DATA, from: '36700' })).toBeNull();
    });

    it('refuses a sender that is neither a number nor an alphanumeric ID', async () => {
      expect(await telnyx.adapter.test({ ...DATA, from: 'Far too long a sender' })).toMatchObject({
        field: 'from',
      });
    });

    it('refuses a public key that is not 32 bytes of base64', async () => {
      expect(await telnyx.adapter.test({ ...DATA, public_key: 'bm90IGEga2V5' })).toEqual({
        field: 'public_key',
        reason: "must be the account's Ed25519 public key, 32 bytes in base64.",
      });
    });

    it('names a missing required field before calling Telnyx', async () => {
      expect(await telnyx.adapter.test({ from: FakeTelnyx.NUMBER })).toBe('api_key is required.');
    });
  });

  describe('checkStatus', () => {
    it('reports an account with credit as available, and without as no credit', async () => {
      const funded = await telnyx.adapter.checkStatus(DATA);
      telnyx.fake.availableCredit = '0.00';

      expect([funded, await telnyx.adapter.checkStatus(DATA)]).toEqual(['available', 'no_credit']);
    });

    it('reports a refused key as unavailable, logging no secret', async () => {
      expect(await telnyx.adapter.checkStatus({ ...DATA, api_key: 'KEYwrong-secret' })).toBe(
        'unavailable',
      );
      expect(JSON.stringify(telnyx.warnings.mock.calls)).not.toMatch(
        /KEYwrong-secret|fakeTelnyxKey/,
      );
    });
  });

  describe('send', () => {
    it('posts from, to, text and webhook_url as JSON with the Bearer key, and gives the message id', async () => {
      const data = { ...DATA, status_change_callback: 'https://sms.example.org/cb' };

      const result = await telnyx.adapter.send(data, sms());

      expect(result).toEqual({ outcome: 'sent', uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(telnyx.fake.created).toEqual([
        {
          from: FakeTelnyx.NUMBER,
          to: '+33655555555',
          text: 'Hello there',
          webhook_url: 'https://sms.example.org/cb',
        },
      ]);
    });

    itAsksForStatusesAtThePhoneUrl(telnyx, sms, () =>
      telnyx.fake.created.map((body) => body.webhook_url),
    );

    it('sends from an alphanumeric sender with its messaging profile', async () => {
      const data = { ...DATA, from: 'Acme', messaging_profile_id: FakeTelnyx.PROFILE };

      expect((await telnyx.adapter.send(data, sms())).outcome).toBe('sent');
      expect(telnyx.fake.created[0]).toMatchObject({
        from: 'Acme',
        messaging_profile_id: FakeTelnyx.PROFILE,
      });
    });

    it('sends medias as media_urls', async () => {
      const medias = [
        { path: '1/a.jpg', mimetype: 'image/jpeg', url: 'https://sms.example.org/a.jpg' },
      ];

      expect((await telnyx.adapter.send(DATA, sms({ text: '', medias }))).outcome).toBe('sent');
      expect(telnyx.fake.created[0]).toEqual({
        from: FakeTelnyx.NUMBER,
        to: '+33655555555',
        media_urls: ['https://sms.example.org/a.jpg'],
      });
    });

    it('refuses for good a refused key', async () => {
      expect(await telnyx.adapter.send({ ...DATA, api_key: 'KEYwrong' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Telnyx refused the API key (HTTP 401): check api_key.',
        cause: 'phone',
      });
    });

    it("refuses for good an invalid destination, quoting Telnyx's error", async () => {
      expect(await telnyx.adapter.send(DATA, sms({ destination: '+12' }))).toEqual({
        outcome: 'permanent',
        reason:
          "Telnyx refused the message (error 40310: Invalid 'to' address: The 'to' address should be in +E.164 format).",
        cause: 'recipient',
      });
    });

    it('refuses for good a sender of another account', async () => {
      expect(await telnyx.adapter.send({ ...DATA, from: '+33699999999' }, sms())).toEqual({
        outcome: 'permanent',
        reason:
          "Telnyx refused the message (error 40305: Invalid 'from' address: The 'from' address is not a number or alphanumeric sender of this account).",
        cause: 'phone',
      });
    });

    // Each refusal Telnyx documents, and whose it is (docs/adapters.md#refusals).
    it.each<[number, string, string, 'recipient' | 'phone']>([
      [400, '40310', "Invalid 'to' address", 'recipient'],
      [400, '40300', 'Blocked due to STOP message', 'recipient'],
      [400, '40305', "Invalid 'from' address", 'phone'],
      [402, '10038', 'Insufficient balance', 'phone'],
      [422, '10009', 'Authentication failed', 'phone'],
    ])(
      'classifies HTTP %i error %s (%s) as the %s refusing',
      async (status, code, title, cause) => {
        telnyx.fake.refuseWith = { status, code, title };

        expect(await telnyx.adapter.send(DATA, sms())).toMatchObject({
          outcome: 'permanent',
          cause,
        });
      },
    );

    it('retries later when Telnyx throttles (HTTP 429, error 10011)', async () => {
      telnyx.fake.failWith = 429;

      expect(await telnyx.adapter.send(DATA, sms())).toEqual({
        outcome: 'transient',
        reason:
          'Telnyx could not take the message now (HTTP 429, error 10011: Too many requests: Rate limit exceeded, slow down): try again later.',
      });
    });

    it('retries later a 503, fails a 500 for good, and does not send again after a 502 page', async () => {
      telnyx.fake.failWith = 503;
      const unavailable = await telnyx.adapter.send(DATA, sms());
      telnyx.fake.failWith = 500;
      const failing = await telnyx.adapter.send(DATA, sms());
      telnyx.fake.misbehaviour = { kind: 'html', status: 502 };

      expect([
        unavailable.outcome,
        failing.outcome,
        await telnyx.adapter.send(DATA, sms()),
      ]).toEqual([
        'transient',
        'permanent',
        {
          outcome: 'ambiguous',
          reason: `Telnyx answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
        },
      ]);
    });

    it('refuses for good a 4xx HTML page', async () => {
      telnyx.fake.misbehaviour = { kind: 'html', status: 400 };

      expect(await telnyx.adapter.send(DATA, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Telnyx answered HTTP 400, which smsgw does not expect: check the adapter data.',
        cause: 'recipient',
      });
    });

    it('refuses for good, without calling Telnyx, when a required field is missing', async () => {
      expect(await telnyx.adapter.send({ ...DATA, api_key: ' ' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'api_key is required.',
        cause: 'phone',
      });
      expect(telnyx.fake.created).toHaveLength(0);
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['delivered', 'delivered'],
      ['delivery_failed', 'failed'],
      ['sending_failed', 'failed'],
      ['delivery_unconfirmed', 'unknown'],
      ['sent', 'unknown'],
    ])('reads a message.finalized with status %s as %s', (reported, status) => {
      expect(telnyx.adapter.parseStatusCallback(callback(finalized(reported)))).toEqual({
        uid: MESSAGE_ID,
        status,
      });
    });

    it('reads a message.sent as on the way', () => {
      expect(
        telnyx.adapter.parseStatusCallback(callback(finalized('sent', 'message.sent'))),
      ).toEqual({
        uid: MESSAGE_ID,
        status: 'unknown',
      });
    });

    it.each([
      ['an inbound message', RECEIVED],
      ['a body that is not JSON', '<html>'],
      ['an event without payload', JSON.stringify({ data: { event_type: 'message.finalized' } })],
    ])('ignores %s', (_name, body) => {
      expect(telnyx.adapter.parseStatusCallback(callback(body))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    it('reads the sender, text and UTC time of a message.received', () => {
      expect(telnyx.adapter.parseReceptionCallback(callback(RECEIVED))).toEqual({
        origin: '+33687654321',
        text: 'Hi from a phone',
        at: '2026-11-24 11:59:58',
      });
    });

    it('ignores a delivery event', () => {
      expect(telnyx.adapter.parseReceptionCallback(callback(finalized('delivered')))).toBeNull();
    });
  });

  describe('verifyCallback', () => {
    it('accepts an event signed with the account key', () => {
      expect(telnyx.adapter.verifyCallback(callback(RECEIVED), DATA)).toBe(true);
    });

    it('rejects a tampered body', () => {
      const request = callback(RECEIVED);

      expect(
        telnyx.adapter.verifyCallback({ ...request, rawBody: RECEIVED.replace('Hi', 'Yo') }, DATA),
      ).toBe(false);
    });

    it('rejects a tampered timestamp', () => {
      const request = callback(RECEIVED);
      const headers = {
        ...request.headers,
        'telnyx-timestamp': String(Number(request.headers['telnyx-timestamp']) + 1),
      };

      expect(telnyx.adapter.verifyCallback({ ...request, headers }, DATA)).toBe(false);
    });

    it('rejects an event signed more than five minutes ago, even with a good signature', () => {
      const old = callback(RECEIVED, { timestamp: Math.floor(Date.now() / 1000) - 301 });

      expect(telnyx.adapter.verifyCallback(old, DATA)).toBe(false);
    });

    it('rejects an event signed with another key', () => {
      const other = generateKeyPairSync('ed25519').privateKey;

      expect(telnyx.adapter.verifyCallback(callback(RECEIVED, { signWith: other }), DATA)).toBe(
        false,
      );
    });

    it.each(['telnyx-signature-ed25519', 'telnyx-timestamp'])(
      'rejects an event without %s',
      (name) => {
        const request = callback(RECEIVED);
        const headers = { ...request.headers, [name]: undefined };

        expect(telnyx.adapter.verifyCallback({ ...request, headers }, DATA)).toBe(false);
      },
    );

    it('rejects a signature that is not base64 of a signature', () => {
      expect(
        telnyx.adapter.verifyCallback(
          callback(RECEIVED, { headers: { 'telnyx-signature-ed25519': '!!' } }),
          DATA,
        ),
      ).toBe(false);
    });

    it('takes no event for a phone without a public key', () => {
      expect(telnyx.adapter.verifyCallback(callback(RECEIVED), FakeTelnyx.data())).toBe(false);
    });
  });
});
