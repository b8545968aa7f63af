import { createHmac } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AdapterDataCipher } from '../../src/adapters/adapter-data.cipher';
import { Phone } from '../../src/phones/entities/phone.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { FakeServer, sendJson, startFakeServer } from '../support/adapters.factories';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeSended, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * Provider credentials are encrypted at rest (issue: secrets), over real HTTP against the real
 * app on every engine: what the API writes holds no credential in clear, updates keep the stored
 * ones, the providers still get them in clear, and a phone whose stored credentials no longer
 * decrypt fails cleanly everywhere instead of crashing anything.
 */

const PASSWORD = 'kannel-pw-Ä+/=1';
const TOKEN = 'twilio-token-0b1c';
const SID = 'AC00000000000000000000000000000009';
const NUMBER = '+33612345678';
const UNREADABLE =
  /the phone's stored password cannot be decrypted \(the server's secrets key changed, or what is stored was altered\)/;

describeEachDatabase('provider credentials encrypted at rest', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let kannel: FakeServer;
  let twilio: FakeServer;
  /** The passwords the Kannel fake was given, in order. */
  let given: string[];

  beforeAll(async () => {
    kannel = await startFakeServer((incoming, response) => {
      const query = new URL(incoming.url ?? '/', 'http://kannel').searchParams;
      given.push(query.get('password') ?? '');
      const status = query.get('password') !== PASSWORD ? 403 : query.get('to') ? 202 : 400;
      response.writeHead(status, { 'Content-Type': 'text/plain' });
      response.end(status === 202 ? '0: Accepted for delivery' : 'Authorization failed');
    });
    twilio = await startFakeServer((incoming, response) => {
      const expected = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
      if (incoming.headers.authorization !== expected) {
        sendJson(response, 401, { code: 20003, message: 'Authenticate' });
      } else {
        sendJson(response, 200, { incoming_phone_numbers: [{ phone_number: NUMBER }] });
      }
    });
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      TWILIO_API_URL: twilio.url,
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([kannel?.close(), twilio?.close()]);
  });
  beforeEach(() => {
    given = [];
  });

  const kannelData = () => ({
    kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
    username: 'smsgw',
    password: PASSWORD,
    from: 'smsgw',
  });
  const column = async (id: number) =>
    (await ds.getRepository(Phone).findOneByOrFail({ id })).adapter_data ?? '';
  const opened = async (id: number) =>
    t.app.get(AdapterDataCipher).open(await ds.getRepository(Phone).findOneByOrFail({ id }));
  const createKannel = async (apiKey: string) => {
    const response = await api(t, apiKey).json('/api/phone/', {
      name: `kannel ${Math.random()}`,
      adapter: 'kannel',
      adapter_data: kannelData(),
    });
    expect(response.status).toBe(201);
    return response.body.response as number;
  };
  /** Replaces the stored password with one the server's key cannot decrypt. */
  const spoil = async (id: number, value: string) => {
    const data = JSON.parse(await column(id)) as Record<string, string>;
    await ds
      .getRepository(Phone)
      .update({ id }, { adapter_data: JSON.stringify({ ...data, password: value }) });
  };
  const sentEntries = async (apiKey: string) =>
    (await api(t, apiKey, 'query').get('/api/list/sended/')).body.response as Array<
      Record<string, unknown>
    >;

  it('stores the credentials of a phone created through the API encrypted, its other data in clear', async () => {
    const { apiKey } = await makeUser(ds);

    const id = await createKannel(apiKey);

    const stored = await column(id);
    expect(JSON.parse(stored)).toEqual({
      ...kannelData(),
      password: expect.stringMatching(/^enc:v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/=]+$/),
    });
    for (const form of [PASSWORD, encodeURIComponent(PASSWORD), JSON.stringify(PASSWORD)]) {
      expect(stored).not.toContain(form.replace(/^"|"$/g, ''));
    }
    expect(await opened(id)).toEqual({ data: kannelData(), unreadable: [] });
    // The adapter's test got the password in clear.
    expect(given).toEqual([PASSWORD]);
  });

  it('keeps the stored password, encrypted again, when an update does not resend it', async () => {
    const { apiKey } = await makeUser(ds);
    const id = await createKannel(apiKey);
    const before = await column(id);
    given = [];

    const response = await api(t, apiKey)
      .form(`/api/phone/${id}/`)
      .send({ 'adapter_data[from]': 'other', 'adapter_data[password]': '' });

    expect(response.status).toBe(200);
    expect(given).toEqual([PASSWORD]);
    const after = await column(id);
    expect(JSON.parse(after).password).not.toBe(JSON.parse(before).password);
    expect(after).not.toContain(PASSWORD);
    expect(await opened(id)).toEqual({
      data: { ...kannelData(), from: 'other' },
      unreadable: [],
    });
  });

  it('leaves the stored data as it is when an update changes neither adapter nor data', async () => {
    const { apiKey } = await makeUser(ds);
    const id = await createKannel(apiKey);
    const before = await column(id);

    const response = await api(t, apiKey).json(`/api/phone/${id}/`, {
      name: 'renamed',
      priority: 2,
    });

    expect(response.status).toBe(200);
    expect(await column(id)).toBe(before);
  });

  it('sends through the provider with the decrypted password', async () => {
    const { apiKey } = await makeUser(ds);
    const id = await createKannel(apiKey);
    given = [];

    await api(t, apiKey)
      .json('/api/scheduled/', { text: 'Hello', numbers: [NUMBER], id_phone: id })
      .expect(201);
    await waitFor(async () => (await sentEntries(apiKey)).length === 1, 'the sent entry');

    expect(given).toEqual([PASSWORD]);
    expect((await sentEntries(apiKey))[0]).toMatchObject({ status: 'unknown', error: null });
  });

  it('checks a Twilio signature with the decrypted auth token', async () => {
    const { user, apiKey } = await makeUser(ds);
    const created = await api(t, apiKey).json('/api/phone/', {
      name: 'twilio',
      adapter: 'twilio',
      adapter_data: { account_sid: SID, auth_token: TOKEN, number: NUMBER },
    });
    expect(created.status).toBe(201);
    const phoneId = created.body.response as number;
    expect(await column(phoneId)).not.toContain(TOKEN);
    const sent = await makeSended(ds, user.id, {
      id_phone: phoneId,
      adapter: 'twilio',
      uid: 'SM-signed',
    });
    const path = `/callback/status/twilio/?api_key=${apiKey}`;
    const form = { MessageSid: 'SM-signed', MessageStatus: 'delivered' };
    const signed = Object.entries(form)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => `${name}${value}`)
      .join('');
    const signature = createHmac('sha1', TOKEN).update(`${t.url}${path}${signed}`).digest('base64');

    await request(t.url).post(path).type('form').set('X-Twilio-Signature', signature).send(form);

    expect((await sentEntries(apiKey)).find((entry) => entry.id === sent.id)?.status).toBe(
      'delivered',
    );
  });

  describe('a phone whose stored password does not decrypt', () => {
    let apiKey: string;
    let id: number;

    beforeEach(async () => {
      ({ apiKey } = await makeUser(ds));
      id = await createKannel(apiKey);
      // A value of another phone: each value is bound to its own phone and user.
      const other = await makePhone(ds, (await makeUser(ds)).user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify(kannelData()),
      });
      await spoil(id, (JSON.parse(other.adapter_data ?? '{}') as { password: string }).password);
      given = [];
    });

    it('sends nothing: its messages become failed entries saying why', async () => {
      await api(t, apiKey)
        .json('/api/scheduled/', { text: 'Hello', numbers: [NUMBER], id_phone: id })
        .expect(201);
      await waitFor(async () => (await sentEntries(apiKey)).length === 1, 'the failed entry');

      const [entry] = await sentEntries(apiKey);
      expect(entry).toMatchObject({ status: 'failed', id_phone: id });
      expect(entry.error).toMatch(
        /^The phone's stored password cannot be decrypted .*: send its adapter_data again with post_update_phone\.$/,
      );
      expect(given).toEqual([]);
    });

    it('makes its status check say so, and leaves it unavailable', async () => {
      const response = await api(t, apiKey).post(`/api/phone/${id}/status/`);

      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error: 128, response: null });
      expect(response.body.message).toMatch(UNREADABLE);
      expect(response.body.message).toMatch(
        /: send its adapter_data again with post_update_phone; the phone is unavailable until then\.$/,
      );
      expect((await ds.getRepository(Phone).findOneByOrFail({ id })).status).toBe('unavailable');
    });

    it('is still listed, without its data', async () => {
      const response = await api(t, apiKey, 'query').get('/api/list/phone/');

      expect(response.status).toBe(200);
      expect(response.body.response).toEqual([
        expect.not.objectContaining({ adapter_data: expect.anything() }),
      ]);
    });

    it('asks for the password again on an update that does not send it', async () => {
      const response = await api(t, apiKey)
        .form(`/api/phone/${id}/`)
        .send({ 'adapter_data[from]': 'other' });

      expect(response.status).toBe(400);
      expect(response.body.error).toBe(4);
      expect(response.body.message).toMatch(
        /^One require parameter is missing : adapter_data\[password\] must be sent again: /,
      );
      expect(response.body.message).toMatch(UNREADABLE);
      expect(given).toEqual([]);
    });

    it('works again once the password is sent again', async () => {
      const response = await api(t, apiKey)
        .form(`/api/phone/${id}/`)
        .send({ 'adapter_data[password]': PASSWORD });

      expect(response.status).toBe(200);
      expect(await opened(id)).toEqual({ data: kannelData(), unreadable: [] });
      const status = await api(t, apiKey).post(`/api/phone/${id}/status/`);
      expect(status.body.response).toBe('available');
    });
  });

  it('counts a tampered value as unreadable, like one of another key', async () => {
    const { apiKey } = await makeUser(ds);
    const id = await createKannel(apiKey);
    const sealed = (JSON.parse(await column(id)) as { password: string }).password;
    await spoil(id, `${sealed.slice(0, -4)}AAA=`);

    const response = await api(t, apiKey).post(`/api/phone/${id}/status/`);

    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(UNREADABLE);
  });
});
