import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { FakeServer } from '../support/adapters.factories';
import { makeUser } from '../support/factories';
import {
  FakeSmsGatewayAndroid,
  startFakeSmsGatewayAndroid,
} from '../support/fake-sms-gateway-android';
import { waitFor } from '../support/instruments';

/*
 * SMS Gateway for Android over the real app: a phone created through the API (its credentials
 * checked against the fake app), a message sent by the inline worker, then the app's signed
 * webhooks posted to the RaspiSMS-style callback URLs (docs/adapters.md#sms-gateway-for-android).
 */

const DESTINATION = '+33612345678';
const SENDER = '+33698765432';

interface SendedEntry {
  id: number;
  id_phone: number;
  destination: string;
  status: string;
  uid: string | null;
  error: string | null;
}

describeEachDatabase('SMS Gateway for Android', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let phone: { fake: FakeSmsGatewayAndroid; server: FakeServer; apiUrl: string };
  let cloud: { fake: FakeSmsGatewayAndroid; server: FakeServer; apiUrl: string };

  beforeAll(async () => {
    phone = await startFakeSmsGatewayAndroid();
    cloud = await startFakeSmsGatewayAndroid('/3rdparty/v1');
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_RETRY_BASE_MS: '20',
      PUBLIC_URL: 'https://sms.example.org',
      SMS_GATEWAY_ANDROID_API_URL: cloud.apiUrl,
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
    await phone.server.close();
    await cloud.server.close();
  });

  const createPhone = (apiKey: string, name: string, data: Record<string, string>) =>
    api(t, apiKey).json('/api/phone/', {
      name,
      adapter: 'sms_gateway_android',
      adapter_data: data,
    });

  /** A phone of a new user, created through the API. */
  const userWithPhone = async (data: Record<string, string>) => {
    const { user, apiKey } = await makeUser(ds);
    const created = await createPhone(apiKey, 'android', data);
    expect(created.status).toBe(201);
    return { user, apiKey, phoneId: (created.body as { response: number }).response };
  };

  /** Schedules one message now and gives its sent entry once it has a final send outcome. */
  const sendOne = async (apiKey: string, text: string): Promise<SendedEntry> => {
    const scheduled = await api(t, apiKey, 'query')
      .post('/api/scheduled/')
      .send({ text, numbers: [DESTINATION] });
    expect(scheduled.status).toBe(201);
    let entries: SendedEntry[] = [];
    await waitFor(async () => {
      const listed = await api(t, apiKey, 'query').get('/api/list/sended/');
      entries = (listed.body as { response: SendedEntry[] }).response;
      return entries.length === 1;
    }, 'the sent entry');
    return entries[0];
  };

  const statusOf = async (apiKey: string, id: number) => {
    const listed = await api(t, apiKey, 'query').get('/api/list/sended/');
    return (listed.body as { response: SendedEntry[] }).response.find((entry) => entry.id === id)
      ?.status;
  };

  /** Posts a webhook as the app does: its JSON body as it signed it, with its headers. */
  const post = (
    path: string,
    apiKey: string,
    webhook: ReturnType<typeof FakeSmsGatewayAndroid.webhook>,
  ) => api(t, apiKey, 'query').post(path).set(webhook.headers).send(webhook.body);

  it('refuses to create a phone whose credentials the app refuses, saying which to check', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await createPhone(
      apiKey,
      'wrong',
      FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl, password: 'wrong' }),
    );

    expect(response.status).toBe(422);
    expect(response.body.message).toBe(
      'Cannot create a new entry. The sms_gateway_android adapter refused adapter_data: SMS Gateway for Android refused the credentials (HTTP 401): check username and password against those the app shows for the server in use.',
    );
  });

  it('refuses an api_url that is not an http(s) URL, naming the field', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await createPhone(
      apiKey,
      'bad url',
      FakeSmsGatewayAndroid.data({ api_url: '192.168.1.50:8080' }),
    );

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/adapter_data\[api_url\] : must be an http\(s\) URL/);
  });

  it("sends through the phone's local server, then applies its signed receipt", async () => {
    const { apiKey, phoneId } = await userWithPhone(
      FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }),
    );

    const entry = await sendOne(apiKey, 'Hello from Android');

    expect(entry).toMatchObject({ id_phone: phoneId, status: 'unknown', error: null });
    expect(phone.fake.messages.get(entry.uid!)?.posted).toMatchObject({
      id: entry.uid,
      message: 'Hello from Android',
      phoneNumbers: [DESTINATION],
    });
    const delivered = FakeSmsGatewayAndroid.webhook('sms:delivered', {
      messageId: entry.uid,
      recipient: DESTINATION,
      phoneNumber: DESTINATION,
      deliveredAt: '2024-06-22T15:46:11.000+07:00',
    });

    const answer = await post('/callback/status/sms_gateway_android/', apiKey, delivered);

    expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '' });
    expect(await statusOf(apiKey, entry.id)).toBe('delivered');
  });

  it("registers the app's webhooks at the phone's own URLs, and again when its token is rotated", async () => {
    phone.fake.webhooks.length = 0;
    const { apiKey, phoneId } = await userWithPhone(
      FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }),
    );
    const registered = () =>
      Object.fromEntries(phone.fake.webhooks.map(({ event, url }) => [event, url]));
    const listed = async () =>
      (
        (await api(t, apiKey).get('/api/list/phone/')).body.response as Array<{
          id: number;
          callback_urls: { status: string; reception: string };
        }>
      ).find((entry) => entry.id === phoneId)?.callback_urls;

    const first = await listed();
    expect(registered()).toEqual({
      'sms:received': first?.reception,
      'sms:delivered': first?.status,
      'sms:failed': first?.status,
    });

    const rotated = await api(t, apiKey).post(`/api/phone/${phoneId}/callback-token/`).expect(200);

    const urls = rotated.body.response as { status: string; reception: string };
    expect(urls.status).not.toBe(first?.status);
    expect(registered()).toEqual({
      'sms:received': urls.reception,
      'sms:delivered': urls.status,
      'sms:failed': urls.status,
    });
  });

  it('sends again, under the same id, a message whose answer was cut: the app takes it once', async () => {
    const { apiKey } = await userWithPhone(FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }));
    const before = phone.fake.messages.size;
    const posts = () =>
      phone.fake.calls.filter((call) => call.method === 'POST' && call.path.endsWith('/message'))
        .length;
    const postsBefore = posts();
    phone.fake.cutAfterTaking = true;

    const entry = await sendOne(apiKey, 'Only once');

    expect(entry).toMatchObject({ status: 'unknown', error: null });
    expect(entry.uid).toMatch(/^smsgw-[0-9a-f]{24}$/);
    expect(phone.fake.messages.size).toBe(before + 1);
    expect(posts() - postsBefore).toBe(2);
  });

  it('sends through the cloud when the phone has no api_url, and applies sms:failed', async () => {
    const { apiKey } = await userWithPhone(FakeSmsGatewayAndroid.data());

    const entry = await sendOne(apiKey, 'Through the cloud');

    expect(cloud.fake.messages.has(entry.uid!)).toBe(true);
    await post(
      '/callback/status/sms_gateway_android/',
      apiKey,
      FakeSmsGatewayAndroid.webhook('sms:failed', {
        messageId: entry.uid,
        recipient: DESTINATION,
        reason: 'RESULT_ERROR_GENERIC_FAILURE',
      }),
    );
    expect(await statusOf(apiKey, entry.id)).toBe('failed');
  });

  it('ignores a receipt whose signature the signing key does not verify', async () => {
    const { apiKey } = await userWithPhone(FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }));
    const entry = await sendOne(apiKey, 'Forged receipts');
    const forged = FakeSmsGatewayAndroid.webhook(
      'sms:failed',
      { messageId: entry.uid, recipient: DESTINATION },
      'not-the-signing-key',
    );
    const unsigned = FakeSmsGatewayAndroid.webhook('sms:delivered', { messageId: entry.uid });

    for (const webhook of [
      forged,
      { ...unsigned, headers: { 'content-type': 'application/json' } },
    ]) {
      const answer = await post('/callback/status/sms_gateway_android/', apiKey, webhook);
      expect(answer.status).toBe(200);
    }

    expect(await statusOf(apiKey, entry.id)).toBe('unknown');
  });

  it('stores an inbound message of a signed sms:received webhook, at its UTC time', async () => {
    const { user, apiKey, phoneId } = await userWithPhone(
      FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }),
    );
    const received = FakeSmsGatewayAndroid.webhook('sms:received', {
      messageId: 'in-1',
      message: 'Bonjour 👋',
      sender: SENDER,
      recipient: null,
      phoneNumber: SENDER,
      simNumber: 1,
      receivedAt: '2024-06-22T15:46:11.000+07:00',
    });

    const answer = await post(
      `/callback/reception/sms_gateway_android/${phoneId}/`,
      apiKey,
      received,
    );

    expect({ status: answer.status, body: answer.text }).toEqual({ status: 200, body: '' });
    expect(await ds.getRepository(Received).findBy({ id_user: user.id })).toEqual([
      expect.objectContaining({
        id_phone: phoneId,
        origin: SENDER,
        text: 'Bonjour 👋',
        at: '2024-06-22 08:46:11',
        status: 'unread',
      }),
    ]);
  });

  it('stores nothing for an sms:received webhook changed after signing', async () => {
    const { user, apiKey, phoneId } = await userWithPhone(
      FakeSmsGatewayAndroid.data({ api_url: phone.apiUrl }),
    );
    const webhook = FakeSmsGatewayAndroid.webhook('sms:received', {
      messageId: 'in-2',
      message: 'Pay 10 EUR',
      sender: SENDER,
    });

    await post(`/callback/reception/sms_gateway_android/${phoneId}/`, apiKey, {
      ...webhook,
      body: webhook.body.replace('10 EUR', '999 EUR'),
    });

    expect(await ds.getRepository(Received).findBy({ id_user: user.id })).toEqual([]);
  });
});
