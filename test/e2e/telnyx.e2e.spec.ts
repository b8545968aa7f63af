import { generateKeyPairSync, sign } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { FakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { FakeTelnyx, startFakeTelnyx } from '../support/fake-telnyx';
import { waitFor } from '../support/instruments';

/*
 * A Telnyx phone end to end, over the real app and a fake Telnyx: created through the API (its
 * key checked against the fake), a message sent by the inline worker, then its
 * `message.finalized` and a `message.received` event, signed with Ed25519 as Telnyx signs,
 * through the RaspiSMS-style callback URLs; an event with a bad signature changes nothing.
 */

const DESTINATION = '+33655555555';
const keys = generateKeyPairSync('ed25519');
const PUBLIC_KEY = keys.publicKey
  .export({ format: 'der', type: 'spki' })
  .subarray(12)
  .toString('base64');

/** A Telnyx event's JSON and the headers that sign it. */
function signedEvent(type: string, payload: Record<string, unknown>, signWith = keys.privateKey) {
  const body = JSON.stringify({
    data: { event_type: type, id: 'ev-1', payload, record_type: 'event' },
    meta: { attempt: 1 },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`), signWith).toString('base64');
  return {
    body,
    headers: { 'telnyx-timestamp': timestamp, 'telnyx-signature-ed25519': signature },
  };
}

describeEachDatabase('telnyx phone (fake Telnyx)', (database) => {
  let telnyx: { fake: FakeTelnyx; server: FakeServer };
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    telnyx = await startFakeTelnyx();
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      TELNYX_API_URL: telnyx.server.url,
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t?.close();
    await telnyx?.server.close();
  });

  const createPhone = (apiKey: string, data: Record<string, string>) =>
    api(t, apiKey)
      .form('/api/phone/')
      .send({
        name: `telnyx ${Math.random()}`,
        adapter: 'telnyx',
        ...Object.fromEntries(
          Object.entries(data).map(([name, value]) => [`adapter_data[${name}]`, value]),
        ),
      });
  const post = (path: string, event: ReturnType<typeof signedEvent>) =>
    request(t.url)
      .post(path)
      .set(event.headers)
      .set('Content-Type', 'application/json')
      .send(event.body);

  it('refuses a phone whose API key Telnyx refuses', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await createPhone(apiKey, FakeTelnyx.data({ api_key: 'KEYwrong' }));

    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body)).toContain(
      'Telnyx refused the API key (HTTP 401): check api_key.',
    );
  });

  it('sends through Telnyx, then takes its signed delivery and inbound events', async () => {
    const { apiKey } = await makeUser(ds);
    const statusUrl = `${t.url}/callback/status/telnyx/?api_key=${apiKey}`;
    const created = await createPhone(
      apiKey,
      FakeTelnyx.data({ public_key: PUBLIC_KEY, status_change_callback: statusUrl }),
    );
    expect(created.status).toBe(201);
    const phoneId = created.body.response as number;
    const [row] = await ds.query<Array<{ adapter_data: string }>>(
      'SELECT adapter_data FROM phone WHERE id = ?',
      [phoneId],
    );
    expect(row.adapter_data).not.toContain(FakeTelnyx.API_KEY);

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
    expect(telnyx.fake.created.at(-1)).toEqual({
      from: FakeTelnyx.NUMBER,
      to: DESTINATION,
      text: 'Hello from smsgw',
      webhook_url: statusUrl,
    });
    const uid = sent!.uid!;
    expect(sent!.status).toBe('unknown');

    const finalized = (status: string, signWith = keys.privateKey) =>
      signedEvent(
        'message.finalized',
        {
          id: uid,
          direction: 'outbound',
          from: { phone_number: FakeTelnyx.NUMBER },
          to: [{ phone_number: DESTINATION, status }],
        },
        signWith,
      );
    const statusPath = `/callback/status/telnyx/?api_key=${apiKey}`;
    const otherKey = generateKeyPairSync('ed25519').privateKey;
    expect((await post(statusPath, finalized('delivery_failed', otherKey))).status).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('unknown');
    expect((await post(statusPath, finalized('delivered'))).status).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('delivered');

    const received = (text: string, signWith = keys.privateKey) =>
      signedEvent(
        'message.received',
        {
          id: 'in-1',
          direction: 'inbound',
          from: { phone_number: '+33687654321' },
          to: [{ phone_number: FakeTelnyx.NUMBER }],
          text,
          received_at: '2026-11-24T12:01:00.000+00:00',
        },
        signWith,
      );
    const receptionPath = `/callback/reception/telnyx/${phoneId}/?api_key=${apiKey}`;
    expect((await post(receptionPath, received('Forged', otherKey))).status).toBe(200);
    expect((await post(receptionPath, received('Thanks, bye'))).status).toBe(200);
    const stored = await ds.getRepository(Received).findBy({ id_phone: phoneId });
    expect(stored.map(({ origin, text }) => ({ origin, text }))).toEqual([
      { origin: '+33687654321', text: 'Thanks, bye' },
    ]);
  });

  it('takes delivery events at the reception URL too, where the messaging profile posts them', async () => {
    const { apiKey } = await makeUser(ds);
    const created = await createPhone(apiKey, FakeTelnyx.data({ public_key: PUBLIC_KEY }));
    const phoneId = created.body.response as number;
    await api(t, apiKey).json('/api/scheduled/', {
      text: 'No webhook_url',
      numbers: [DESTINATION],
      id_phone: phoneId,
    });
    let sent: Sended | null = null;
    await waitFor(async () => {
      sent = await ds.getRepository(Sended).findOneBy({ id_phone: phoneId });
      return sent !== null;
    }, 'the message sent');
    expect(telnyx.fake.created.at(-1)).not.toHaveProperty('webhook_url');
    const uid = sent!.uid!;
    const event = (signWith = keys.privateKey) =>
      signedEvent(
        'message.finalized',
        {
          id: uid,
          direction: 'outbound',
          to: [{ phone_number: DESTINATION, status: 'delivery_failed' }],
        },
        signWith,
      );
    const receptionPath = `/callback/reception/telnyx/${phoneId}/?api_key=${apiKey}`;

    expect(
      (await post(receptionPath, event(generateKeyPairSync('ed25519').privateKey))).status,
    ).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('unknown');
    expect((await post(receptionPath, event())).status).toBe(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ uid })).status).toBe('failed');
    expect(await ds.getRepository(Received).findBy({ id_phone: phoneId })).toEqual([]);
  });
});
