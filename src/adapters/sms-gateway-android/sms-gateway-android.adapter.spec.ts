import { Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import {
  FakeServer,
  REFUSAL_STATUS_CAUSES,
  adapterDeps,
  closedPort,
  outgoingSms,
  startFakeServer,
  startSilentServer,
} from '../../../test/support/adapters.factories';
import {
  FakeSmsGatewayAndroid,
  startFakeSmsGatewayAndroid,
} from '../../../test/support/fake-sms-gateway-android';
import { CallbackRequest } from '../adapter';
import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import {
  SIGNATURE_TOLERANCE_SECONDS,
  SmsGatewayAndroidAdapter,
} from './sms-gateway-android.adapter';

const PROVIDER = 'SMS Gateway for Android';
const CREDENTIALS_REFUSED =
  'SMS Gateway for Android refused the credentials (HTTP 401): check username and password against those the app shows for the server in use.';

/** The adapter with the cloud's URL set to `cloudUrl`, and more variables. */
function adapterFor(cloudUrl: string, env: Record<string, string> = {}): SmsGatewayAndroidAdapter {
  return new SmsGatewayAndroidAdapter(
    ...adapterDeps({ SMS_GATEWAY_ANDROID_API_URL: cloudUrl, ...env }),
  );
}

function callback(
  signed: { body: string; headers: Record<string, string> },
  headers: Record<string, string | undefined> = {},
): CallbackRequest {
  return {
    method: 'POST',
    url: 'https://smsgw.example.org/callback/status/sms_gateway_android/?api_key=k',
    headers: { ...signed.headers, ...headers },
    query: { api_key: 'k' },
    form: {},
    rawBody: signed.body,
  };
}

describe('SmsGatewayAndroidAdapter', () => {
  let cloud: { fake: FakeSmsGatewayAndroid; server: FakeServer; apiUrl: string };
  let phone: { fake: FakeSmsGatewayAndroid; server: FakeServer; apiUrl: string };
  let adapter: SmsGatewayAndroidAdapter;
  /** The data of a phone reached by its local server. */
  let local: Record<string, string>;
  let warnings: jest.SpyInstance;

  beforeAll(async () => {
    cloud = await startFakeSmsGatewayAndroid('/3rdparty/v1');
    phone = await startFakeSmsGatewayAndroid();
    adapter = adapterFor(cloud.apiUrl);
    local = FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl });
  });

  afterEach(() => {
    warnings.mockRestore();
  });

  afterAll(async () => {
    await cloud.server.close();
    await phone.server.close();
  });

  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    for (const { fake } of [cloud, phone]) {
      fake.failure = null;
      fake.messages.clear();
      fake.calls.length = 0;
    }
  });

  describe('test', () => {
    it('accepts the credentials of the cloud, by default', async () => {
      expect(await adapter.test(FakeSmsGatewayAndroid.data())).toBeNull();
      expect(cloud.fake.calls.map(({ path }) => path)).toEqual([
        expect.stringMatching(/^\/3rdparty\/v1\/message\/[0-9a-f-]{36}$/),
        expect.stringMatching(/^\/3rdparty\/v1\/message\/[0-9a-f-]{36}$/),
      ]);
    });

    it("accepts the credentials of a phone's local server, given as api_url", async () => {
      expect(await adapter.test({ ...local, api_url: `${phone.apiUrl}/` })).toBeNull();
      expect(cloud.fake.calls).toEqual([]);
      expect(phone.fake.calls[0].authorization).toBe(
        `Basic ${Buffer.from('sms:fakePassw0rd').toString('base64')}`,
      );
    });

    it('reports refused credentials, naming the fields to check', async () => {
      expect(await adapter.test({ ...local, password: 'wrong' })).toBe(CREDENTIALS_REFUSED);
    });

    it("reports an api_url that is not the app's API", async () => {
      const other = await startFakeServer((_request, response) => {
        response.writeHead(404).end();
      });
      try {
        expect(await adapter.test({ ...local, api_url: other.url })).toBe(
          `${other.url} answered HTTP 404 where SMS Gateway for Android's API refuses a request without credentials: check api_url (the address the app's local server shows, such as http://192.168.1.50:8080).`,
        );
      } finally {
        await other.close();
      }
    });

    it('reports a redirect, which it does not follow, naming api_url', async () => {
      const other = await startFakeServer((_request, response) => {
        response.writeHead(301, { Location: 'https://elsewhere.example/' }).end();
      });
      try {
        expect(await adapter.test({ ...local, api_url: other.url })).toBe(
          `${other.url} answered HTTP 301, a redirect, which smsgw does not follow: give the final URL of the API as api_url.`,
        );
      } finally {
        await other.close();
      }
    });

    it.each(['phone:8080', 'ftp://192.168.1.50', 'http://u:p@192.168.1.50:8080', 'http://h/?a=1'])(
      'refuses the api_url %p without calling it',
      async (apiUrl) => {
        expect(await adapter.test({ ...local, api_url: apiUrl })).toEqual({
          field: 'api_url',
          reason: expect.stringContaining('must be an http(s) URL') as string,
        });
      },
    );

    it('refuses a private api_url when OUTBOUND_BLOCK_PRIVATE is set, naming the field', async () => {
      const strict = adapterFor(cloud.apiUrl, { OUTBOUND_BLOCK_PRIVATE: 'true' });

      expect(await strict.test(local)).toEqual({
        field: 'api_url',
        reason: expect.any(String) as string,
      });
      expect(phone.fake.calls).toEqual([]);
    });

    it('still reaches the cloud, an operator setting, when OUTBOUND_BLOCK_PRIVATE is set', async () => {
      const strict = adapterFor(cloud.apiUrl, { OUTBOUND_BLOCK_PRIVATE: 'true' });

      expect(await strict.test(FakeSmsGatewayAndroid.data())).toBeNull();
    });

    it.each([
      [{ status: 500, body: { message: 'database is locked' } }, 500],
      [{ status: 429 }, 429],
      ['html' as const, 502],
    ])('reports a failing server (%p)', async (failure, status) => {
      phone.fake.failure = failure;

      expect(await adapter.test(local)).toBe(
        status === 429
          ? `${PROVIDER} answered HTTP 429 (too many requests): try again later.`
          : `${PROVIDER} answered HTTP ${status}: it is failing on its side, try again later.`,
      );
    });

    it('reports a server it cannot connect to, without throwing', async () => {
      const port = await closedPort();

      expect(await adapter.test({ ...local, api_url: `http://127.0.0.1:${port}` })).toBe(
        `Could not reach ${PROVIDER} at http://127.0.0.1:${port} (connection refused).`,
      );
    });

    it('gives up on a server that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const impatient = adapterFor(cloud.apiUrl, { PROVIDER_TIMEOUT_MS: '200' });
      try {
        expect(await impatient.test({ ...local, api_url: silent.url })).toBe(
          `Could not reach ${PROVIDER} at ${silent.url} within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });

    it.each(['username', 'password', 'signing_key'])(
      'names a missing %s before calling the server',
      async (name) => {
        expect(await adapter.test({ ...local, [name]: '' })).toBe(`${name} is required.`);
        expect(phone.fake.calls).toEqual([]);
      },
    );
  });

  describe('checkStatus', () => {
    it('reports a server that passes the test as available', async () => {
      expect(await adapter.checkStatus(local)).toBe('available');
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...local, password: 'wrong' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toMatch(/wrong|fakeSigningKey/);
    });

    it('reports an unreachable server as unavailable', async () => {
      const port = await closedPort();

      expect(await adapter.checkStatus({ ...local, api_url: `http://127.0.0.1:${port}` })).toBe(
        'unavailable',
      );
    });
  });

  describe('send', () => {
    it('posts the text and the destination with an id of its own, which is the uid', async () => {
      const result = await adapter.send(local, outgoingSms({ text: 'Héllo 👋' }));

      expect(result).toEqual({ outcome: 'sent', uid: expect.any(String) as string });
      const uid = (result as { uid: string }).uid;
      expect(phone.fake.messages.get(uid)?.posted).toEqual({
        id: uid,
        message: 'Héllo 👋',
        phoneNumbers: [outgoingSms().destination],
        withDeliveryReport: true,
      });
      expect(uid.length).toBeLessThanOrEqual(36);
    });

    it.each([
      [299, 299],
      [0, 1],
    ])(
      'passes %p seconds of validity left as a ttl of %p seconds, and none without',
      async (seconds, ttl) => {
        const timed = await adapter.send(local, outgoingSms({ validitySeconds: seconds }));
        const untimed = await adapter.send(
          local,
          outgoingSms({ validitySeconds: null, idempotencyKey: 'smsgw-untimed' }),
        );

        expect(phone.fake.messages.get((timed as { uid: string }).uid)?.posted).toMatchObject({
          ttl,
        });
        expect(
          phone.fake.messages.get((untimed as { uid: string }).uid)?.posted,
        ).not.toHaveProperty('ttl');
      },
    );

    it('sends through the cloud when api_url is empty', async () => {
      const result = await adapter.send(FakeSmsGatewayAndroid.data(), outgoingSms());

      expect(result.outcome).toBe('sent');
      expect(cloud.fake.messages.size).toBe(1);
      expect(phone.fake.messages.size).toBe(0);
    });

    it('sends each recipient under its idempotency key: a second attempt is taken as sent (409)', async () => {
      const first = await adapter.send(local, outgoingSms({ idempotencyKey: 'smsgw-key-a' }));
      const again = await adapter.send(local, outgoingSms({ idempotencyKey: 'smsgw-key-a' }));
      const other = await adapter.send(local, outgoingSms({ idempotencyKey: 'smsgw-key-b' }));

      expect([first, again, other]).toEqual([
        { outcome: 'sent', uid: 'smsgw-key-a' },
        { outcome: 'sent', uid: 'smsgw-key-a' },
        { outcome: 'sent', uid: 'smsgw-key-b' },
      ]);
    });

    it('refuses for good with refused credentials', async () => {
      expect(await adapter.send({ ...local, password: 'wrong' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: CREDENTIALS_REFUSED,
        cause: 'phone',
      });
    });

    it("refuses for good a destination the app refuses, quoting the app's reason", async () => {
      expect(await adapter.send(local, outgoingSms({ destination: '0612345678' }))).toEqual({
        outcome: 'permanent',
        reason: 'SMS Gateway for Android refused the message: Invalid phone number: 0612345678.',
        cause: 'recipient',
      });
    });

    it('refuses for good an empty text, as the app does', async () => {
      expect(await adapter.send(local, outgoingSms({ text: '' }))).toEqual({
        outcome: 'permanent',
        reason: 'SMS Gateway for Android refused the message: Text message is empty.',
        cause: 'recipient',
      });
    });

    it('refuses for good a 400 without an error body', async () => {
      phone.fake.failure = { status: 400 };

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'SMS Gateway for Android refused the message.',
        cause: 'recipient',
      });
    });

    // Each refusal of the app's API, and whose it is.
    it.each(REFUSAL_STATUS_CAUSES)(
      'classifies HTTP %i as the %s refusing',
      async (status, cause) => {
        phone.fake.failure = { status, body: { message: 'Refused by the fake' } };

        expect(await adapter.send(local, outgoingSms())).toMatchObject({
          outcome: 'permanent',
          cause,
        });
      },
    );

    it('takes a 409 on its own id as the message already taken', async () => {
      phone.fake.failure = { status: 409, body: { message: 'already exists' } };

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'sent',
        uid: expect.any(String) as string,
      });
    });

    it('retries later when the server throttles (HTTP 429)', async () => {
      phone.fake.failure = { status: 429, body: { message: 'Too Many Requests' } };

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'transient',
        reason: `${PROVIDER} answered HTTP 429 (too many requests): try again later.`,
      });
    });

    it('fails for good a server error (500)', async () => {
      phone.fake.failure = { status: 500, body: { message: 'Failed' } };

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `${PROVIDER} answered HTTP 500: it is failing on its side, try again later.`,
        cause: 'recipient',
      });
    });

    it('reports an HTML error page of a proxy (502) as ambiguous: it may have passed it on', async () => {
      phone.fake.failure = 'html';

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason: `${PROVIDER} answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    it.each(['invalid-json' as const, 'huge' as const])(
      'reports an acceptance without its id (%s) as ambiguous, to be retried with the same id',
      async (failure) => {
        phone.fake.failure = failure;

        expect(await adapter.send(local, outgoingSms())).toEqual({
          outcome: 'ambiguous',
          reason: `${PROVIDER} at ${phone.apiUrl} answered HTTP 202 without the message's id.`,
        });
      },
    );

    it('refuses for good a 4xx it does not expect', async () => {
      phone.fake.failure = { status: 418 };

      expect(await adapter.send(local, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `${PROVIDER} answered HTTP 418, which smsgw does not expect: check the adapter data.`,
        cause: 'recipient',
      });
    });

    it('reports a connection reset in the middle of the answer as ambiguous', async () => {
      phone.fake.failure = 'reset';

      const result = await adapter.send(local, outgoingSms());

      expect(result).toEqual({
        outcome: 'ambiguous',
        reason: expect.stringMatching(/^Could not reach SMS Gateway for Android at /) as string,
      });
    });

    it('reports a server that hangs after reading the request as ambiguous', async () => {
      phone.fake.failure = 'hang';
      const impatient = adapterFor(cloud.apiUrl, { PROVIDER_TIMEOUT_MS: '200' });

      expect(await impatient.send(local, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason: `Could not reach ${PROVIDER} at ${phone.apiUrl} within 200 ms. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    it('retries later a server it cannot connect to', async () => {
      const port = await closedPort();

      expect(
        await adapter.send({ ...local, api_url: `http://127.0.0.1:${port}` }, outgoingSms()),
      ).toEqual({
        outcome: 'transient',
        reason: `Could not reach ${PROVIDER} at http://127.0.0.1:${port} (connection refused).`,
      });
    });

    it('refuses for good a private api_url when OUTBOUND_BLOCK_PRIVATE is set', async () => {
      const strict = adapterFor(cloud.apiUrl, { OUTBOUND_BLOCK_PRIVATE: 'true' });

      const result = await strict.send(local, outgoingSms());

      expect(result).toEqual({
        outcome: 'permanent',
        reason: expect.stringContaining(
          `smsgw does not connect to ${PROVIDER} at ${phone.apiUrl}`,
        ) as string,
        cause: 'phone',
      });
      expect(phone.fake.calls).toEqual([]);
    });

    it('refuses for good, without calling the server, when a required field is missing', async () => {
      expect(await adapter.send({ ...local, password: '' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'password is required.',
        cause: 'phone',
      });
      expect(phone.fake.calls).toEqual([]);
    });
  });

  describe('registerCallbacks', () => {
    const urls = (token: string) => ({
      status: `https://sms.example.org/callback/phone/status/?callback_token=${token}`,
      reception: `https://sms.example.org/callback/phone/reception/?callback_token=${token}`,
    });

    it("registers the three webhooks at the phone's URLs, and replaces them when registered again", async () => {
      phone.fake.webhooks.length = 0;

      expect(await adapter.registerCallbacks(local, urls('first'))).toBeNull();
      expect(await adapter.registerCallbacks(local, urls('second'))).toBeNull();

      expect(phone.fake.webhooks.map(({ id, url, event }) => ({ id, url, event }))).toEqual([
        { id: 'smsgw-sms-received', url: urls('second').reception, event: 'sms:received' },
        { id: 'smsgw-sms-delivered', url: urls('second').status, event: 'sms:delivered' },
        { id: 'smsgw-sms-failed', url: urls('second').status, event: 'sms:failed' },
      ]);
    });

    it('says why when the app refuses a webhook (it calls only https:// URLs)', async () => {
      const plain = {
        status: 'http://sms.example.org/callback/phone/status/?callback_token=t',
        reception: 'http://sms.example.org/callback/phone/reception/?callback_token=t',
      };

      expect(await adapter.registerCallbacks(local, plain)).toBe(
        `${PROVIDER} refused the sms:received webhook (HTTP 400: url must be an https URL and event a known event); the app calls only https:// URLs, so PUBLIC_URL must be one.`,
      );
    });

    it('says why with refused credentials', async () => {
      expect(await adapter.registerCallbacks({ ...local, password: 'wrong' }, urls('x'))).toMatch(
        /refused the sms:received webhook \(HTTP 401/,
      );
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['sms:delivered', 'delivered'],
      ['sms:failed', 'failed'],
      ['sms:sent', 'unknown'],
    ])('reads %s as %s, by the messageId', (event, status) => {
      const signed = FakeSmsGatewayAndroid.webhook(event, {
        messageId: 'msg-1',
        recipient: '+33612345678',
        phoneNumber: '+33612345678',
      });

      expect(adapter.parseStatusCallback(callback(signed))).toEqual({ uid: 'msg-1', status });
    });

    it.each([
      [
        'an inbound message',
        FakeSmsGatewayAndroid.webhook('sms:received', { messageId: 'm' }).body,
      ],
      ['a ping', FakeSmsGatewayAndroid.webhook('system:ping', { health: {} }).body],
      ['no messageId', FakeSmsGatewayAndroid.webhook('sms:delivered', {}).body],
      ['invalid JSON', '{"event":"sms:delivered",'],
      ['a form', 'event=sms:delivered&messageId=m'],
    ])('ignores %s', (_name, body) => {
      expect(adapter.parseStatusCallback(callback({ body, headers: {} }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    it('reads the sender, the text and the time, in UTC', () => {
      const signed = FakeSmsGatewayAndroid.webhook('sms:received', {
        messageId: 'abc',
        message: 'Bonjour',
        sender: '+33612345678',
        recipient: '+33700000000',
        phoneNumber: '+33612345678',
        simNumber: 1,
        receivedAt: '2024-06-22T15:46:11.000+07:00',
      });

      expect(adapter.parseReceptionCallback(callback(signed))).toEqual({
        origin: '+33612345678',
        text: 'Bonjour',
        at: '2024-06-22 08:46:11',
      });
    });

    it('reads phoneNumber as the origin when the app gives no sender, received now without a time', () => {
      const signed = FakeSmsGatewayAndroid.webhook('sms:received', {
        messageId: 'abc',
        message: 'Hi',
        phoneNumber: 'ORANGE',
      });

      expect(adapter.parseReceptionCallback(callback(signed))).toEqual({
        origin: 'ORANGE',
        text: 'Hi',
        at: null,
      });
    });

    it.each([
      ['a receipt', FakeSmsGatewayAndroid.webhook('sms:delivered', { messageId: 'm' }).body],
      ['no text', FakeSmsGatewayAndroid.webhook('sms:received', { sender: '+33612345678' }).body],
      ['no sender', FakeSmsGatewayAndroid.webhook('sms:received', { message: 'x' }).body],
      ['invalid JSON', '<html></html>'],
    ])('ignores %s', (_name, body) => {
      expect(adapter.parseReceptionCallback(callback({ body, headers: {} }))).toBeNull();
    });
  });

  describe('verifyCallback', () => {
    const data = FakeSmsGatewayAndroid.data();
    const signed = () => FakeSmsGatewayAndroid.webhook('sms:delivered', { messageId: 'm' });

    it('accepts a webhook signed with the signing key over the body and the timestamp', () => {
      expect(adapter.verifyCallback(callback(signed()), data)).toBe(true);
    });

    it('accepts the signature written in upper case', () => {
      const webhook = signed();

      expect(
        adapter.verifyCallback(
          callback(webhook, { 'x-signature': webhook.headers['x-signature'].toUpperCase() }),
          data,
        ),
      ).toBe(true);
    });

    it('matches a signature computed independently, as the docs describe it', () => {
      const body = '{"event":"sms:failed","payload":{"messageId":"m"}}';
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', 'key')
        .update(body + timestamp)
        .digest('hex');

      expect(
        adapter.verifyCallback(
          callback({ body, headers: { 'x-signature': signature, 'x-timestamp': timestamp } }),
          { ...data, signing_key: 'key' },
        ),
      ).toBe(true);
    });

    it('rejects a body changed after signing', () => {
      const webhook = signed();

      expect(
        adapter.verifyCallback(
          callback({ ...webhook, body: webhook.body.replace('sms:delivered', 'sms:failed') }),
          data,
        ),
      ).toBe(false);
    });

    it('rejects a timestamp changed after signing', () => {
      const webhook = signed();
      const later = String(Number(webhook.headers['x-timestamp']) + 1);

      expect(adapter.verifyCallback(callback(webhook, { 'x-timestamp': later }), data)).toBe(false);
    });

    it.each(['x-signature', 'x-timestamp'])('rejects a webhook without %s', (header) => {
      expect(adapter.verifyCallback(callback(signed(), { [header]: undefined }), data)).toBe(false);
    });

    it('rejects a webhook signed with another key', () => {
      const webhook = FakeSmsGatewayAndroid.webhook('sms:delivered', { messageId: 'm' }, 'other');

      expect(adapter.verifyCallback(callback(webhook), data)).toBe(false);
    });

    it.each([-1, 1])('rejects a validly signed webhook stamped too far from now (%p)', (sign) => {
      const stale = Math.floor(Date.now() / 1000) + sign * (SIGNATURE_TOLERANCE_SECONDS + 60);
      const webhook = FakeSmsGatewayAndroid.webhook(
        'sms:delivered',
        { messageId: 'm' },
        FakeSmsGatewayAndroid.SIGNING_KEY,
        stale,
      );

      expect(adapter.verifyCallback(callback(webhook), data)).toBe(false);
    });

    it('accepts a webhook stamped a little in the past, as retries are', () => {
      const webhook = FakeSmsGatewayAndroid.webhook(
        'sms:delivered',
        { messageId: 'm' },
        FakeSmsGatewayAndroid.SIGNING_KEY,
        Math.floor(Date.now() / 1000) - 60,
      );

      expect(adapter.verifyCallback(callback(webhook), data)).toBe(true);
    });
  });
});
