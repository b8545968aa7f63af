import { createHash } from 'node:crypto';

import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { FakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { FakeVonage, startFakeVonage } from '../support/fake-vonage';
import { waitFor } from '../support/instruments';

/*
 * A Vonage phone end to end, over the real app and a fake Vonage: created through the API
 * (credentials checked against the fake), a message sent by the inline worker, then a signed
 * delivery receipt and a signed inbound message through the RaspiSMS-style callback URLs; a
 * wrong signature changes nothing.
 */

const SIGNATURE_SECRET = 'vonage-signature-secret';
const DESTINATION = '+33655555555';

/** Vonage's md5hash `sig`, written from its signing docs. */
function signed(params: Record<string, string>): Record<string, string> {
  const text = Object.keys(params)
    .sort()
    .map((name) => `&${name}=${params[name].replace(/[&=]/g, '_')}`)
    .join('');
  return {
    ...params,
    sig: createHash('md5')
      .update(text + SIGNATURE_SECRET)
      .digest('hex'),
  };
}

describeEachDatabase('vonage phone (fake Vonage)', (database) => {
  let vonage: { fake: FakeVonage; server: FakeServer };
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    vonage = await startFakeVonage();
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      VONAGE_API_URL: vonage.server.url,
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t?.close();
    await vonage?.server.close();
  });

  const createPhone = (apiKey: string, data: Record<string, string>) =>
    api(t, apiKey)
      .form('/api/phone/')
      .send({
        name: `vonage ${Math.random()}`,
        adapter: 'vonage',
        ...Object.fromEntries(
          Object.entries(data).map(([name, value]) => [`adapter_data[${name}]`, value]),
        ),
      });

  it('refuses a phone whose credentials Vonage refuses, saying which fields to check', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await createPhone(apiKey, FakeVonage.data({ api_secret: 'wrong' }));

    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain(
      'Vonage refused the credentials (HTTP 401): check api_key and api_secret.',
    );
  });

  it('sends through Vonage, then takes its signed receipt and inbound message', async () => {
    const { apiKey } = await makeUser(ds);
    const statusUrl = `${t.url}/callback/status/vonage/?api_key=${apiKey}`;
    const created = await createPhone(
      apiKey,
      FakeVonage.data({ signature_secret: SIGNATURE_SECRET, status_change_callback: statusUrl }),
    );
    expect(created.status).toBe(201);
    const phoneId = created.body.response as number;
    const [row] = await ds.query<Array<{ adapter_data: string }>>(
      'SELECT adapter_data FROM phone WHERE id = ?',
      [phoneId],
    );
    expect(row.adapter_data).not.toContain(FakeVonage.API_SECRET);

    const scheduled = await api(t, apiKey).json('/api/scheduled/', {
      text: 'Hello from smsgw',
      numbers: [DESTINATION],
      id_phone: phoneId,
    });
    expect(scheduled.status).toBe(201);
    let sent: Sended | null = null;
    await waitFor(async () => {
      sent = await ds.getRepository(Sended).findOneBy({ id_phone: phoneId });
      return sent !== null;
    }, 'the message sent');
    expect(vonage.fake.sent.at(-1)).toMatchObject({
      to: DESTINATION.slice(1),
      text: 'Hello from smsgw',
      callback: statusUrl,
    });
    const uid = sent!.uid!;
    expect(sent!).toMatchObject({ status: 'unknown', destination: DESTINATION });

    const receipt = {
      msisdn: DESTINATION.slice(1),
      to: FakeVonage.SENDER,
      messageId: uid,
      status: 'delivered',
      'err-code': '0',
      'message-timestamp': '2026-11-24 12:00:00',
      timestamp: String(Math.floor(Date.now() / 1000)),
      nonce: 'a1b2c3',
    };
    const forged = await api(t, apiKey, 'query')
      .post('/callback/status/vonage/')
      .type('form')
      .send({ ...signed(receipt), status: 'failed' });
    expect(forged.status).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('unknown');
    const genuine = await api(t, apiKey, 'query')
      .post('/callback/status/vonage/')
      .type('form')
      .send(signed(receipt));
    expect(genuine.status).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('delivered');

    const inbound = {
      msisdn: '33687654321',
      to: FakeVonage.SENDER,
      messageId: '0B00000000000042',
      text: 'Thanks & bye',
      type: 'text',
      'message-timestamp': '2026-11-24 12:01:00',
      timestamp: String(Math.floor(Date.now() / 1000)),
      nonce: 'd4e5f6',
    };
    const reception = (body: Record<string, string>) =>
      api(t, apiKey, 'query').post(`/callback/reception/vonage/${phoneId}/`).send(body);
    expect((await reception({ ...signed(inbound), text: 'Forged' })).status).toBe(200);
    expect((await reception(signed(inbound))).status).toBe(200);
    const received = await ds.getRepository(Received).findBy({ id_phone: phoneId });
    expect(received.map(({ origin, text }) => ({ origin, text }))).toEqual([
      { origin: '+33687654321', text: 'Thanks & bye' },
    ]);
  });
});
