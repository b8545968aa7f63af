import request from 'supertest';
import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { Phone } from '../../src/phones/entities/phone.entity';
import { User } from '../../src/users/entities/user.entity';
import { startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { waitFor } from '../support/instruments';
import { describeEachDatabase } from '../support/databases';
import { makeSended, makeUser } from '../support/factories';
import { CANNOT_UPDATE, expectError } from '../support/envelope';

/*
 * The callback URLs smsgw builds for each phone (docs/adapters.md#callback-urls), over HTTP on
 * every engine: listed with the phone, carrying its token instead of the user's API key; a
 * receipt and a received message through them; a rotated token ending the old URLs; unknown
 * tokens and suspended users refused as unknown keys are.
 */

const PUBLIC_URL = 'https://sms.example.org';

describeEachDatabase('phone callback URLs', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { PUBLIC_URL, WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A test phone created through the API, and its callback URLs as listed. */
  async function phoneOf(
    apiKey: string,
  ): Promise<{ id: number; status: string; reception: string }> {
    const created = await api(t, apiKey).json('/api/phone/', {
      name: `phone ${Math.random()}`,
      adapter: 'test',
    });
    expect(created.status).toBe(201);
    const id = created.body.response as number;
    const listed = await api(t, apiKey).get('/api/list/phone/');
    const phone = (listed.body.response as Array<Record<string, unknown>>).find(
      (entry) => entry.id === id,
    );
    const urls = phone?.callback_urls as { status: string; reception: string };
    return { id, ...urls };
  }

  /** The URL as smsgw's own server answers it: PUBLIC_URL stands for the test app. */
  const local = (url: string) => url.replace(PUBLIC_URL, '');

  it('lists each phone with its own callback URLs, without the API key', async () => {
    const { apiKey } = await makeUser(ds);
    const first = await phoneOf(apiKey);
    const second = await phoneOf(apiKey);

    expect(first.status).toMatch(
      /^https:\/\/sms\.example\.org\/callback\/phone\/status\/\?callback_token=[\w-]{32}$/,
    );
    expect(first.reception).toBe(first.status.replace('/status/', '/reception/'));
    expect(second.status).not.toBe(first.status);
    expect(first.status).not.toContain(apiKey);
  });

  it('applies a receipt and stores a received message sent to those URLs, for that phone', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await phoneOf(apiKey);
    const sended = await makeSended(ds, user.id, { id_phone: phone.id });

    await request(t.url)
      .get(local(phone.status))
      .query({ uid: sended.uid, status: 'delivered' })
      .expect(200);
    await request(t.url)
      .post(local(phone.reception))
      .type('form')
      .send({ origin: '+33612345678', text: 'Hello back' })
      .expect(200);

    expect((await ds.getRepository(Sended).findOneByOrFail({ id: sended.id })).status).toBe(
      'delivered',
    );
    expect(await ds.getRepository(Received).findBy({ id_user: user.id })).toEqual([
      expect.objectContaining({ id_phone: phone.id, origin: '+33612345678', text: 'Hello back' }),
    ]);
  });

  it('ends the old URLs when the token is rotated, and refuses unknown tokens as unknown keys', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await phoneOf(apiKey);
    const sended = await makeSended(ds, user.id, { id_phone: phone.id });

    const rotated = await api(t, apiKey).post(`/api/phone/${phone.id}/callback-token/`);

    expect(rotated.status).toBe(200);
    const urls = rotated.body.response as { status: string; reception: string };
    expect(urls.status).not.toBe(phone.status);
    const old = await request(t.url)
      .get(local(phone.status))
      .query({ uid: sended.uid, status: 'delivered' });
    expect({ status: old.status, body: old.text }).toEqual({ status: 401, body: '' });
    const unknown = await request(t.url)
      .get('/callback/phone/status/')
      .query({ callback_token: 'x'.repeat(32), uid: sended.uid, status: 'delivered' });
    expect(unknown.status).toBe(401);
    expect((await ds.getRepository(Sended).findOneByOrFail({ id: sended.id })).status).toBe(
      'unknown',
    );
    await request(t.url)
      .get(local(urls.status))
      .query({ uid: sended.uid, status: 'delivered' })
      .expect(200);
    expect((await ds.getRepository(Sended).findOneByOrFail({ id: sended.id })).status).toBe(
      'delivered',
    );
  });

  it("has Kannel report a message sent through the dispatch to the phone's own URL", async () => {
    const dlrUrls: string[] = [];
    const kannel = await startFakeServer((incoming, response) => {
      const query = new URL(incoming.url ?? '/', 'http://kannel').searchParams;
      // The phone's credentials check sends no `to`: only sends are kept.
      if (query.has('to')) {
        dlrUrls.push(query.get('dlr-url') ?? '');
      }
      response.writeHead(202, { 'Content-Type': 'text/plain' });
      response.end('0: Accepted for delivery');
    });
    try {
      const { user, apiKey } = await makeUser(ds);
      const created = await api(t, apiKey).json('/api/phone/', {
        name: 'kannel',
        adapter: 'kannel',
        adapter_data: kannelAdapterData(kannel.url),
      });
      expect(created.status).toBe(201);
      const [listed] = (await api(t, apiKey).get('/api/list/phone/')).body.response as Array<{
        callback_urls: { status: string };
      }>;

      await api(t, apiKey)
        .json('/api/scheduled/', { text: 'Hello', numbers: ['+33612345678'] })
        .expect(201);
      await waitFor(
        async () => (await ds.getRepository(Sended).countBy({ id_user: user.id })) === 1,
      );
      const [sent] = await ds.getRepository(Sended).findBy({ id_user: user.id });
      expect(dlrUrls).toEqual([`${listed.callback_urls.status}&sms_uid=${sent.uid}&type=%d`]);

      // Kannel replaces %d with the report's type: 1, delivered to the phone.
      await request(t.url)
        .get(local(dlrUrls[0].replace('%d', '1')))
        .expect(200);

      expect((await ds.getRepository(Sended).findOneByOrFail({ id: sent.id })).status).toBe(
        'delivered',
      );
    } finally {
      await kannel.close();
    }
  });

  it("refuses a suspended user's URLs, and another user's phone as a missing one", async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await phoneOf(apiKey);
    const other = await makeUser(ds);
    await ds.getRepository(User).update({ id: user.id }, { status: 'suspended' });

    const refused = await request(t.url)
      .post(local(phone.reception))
      .type('form')
      .send({ origin: '+33612345678', text: 'Too late' });

    expect(refused.status).toBe(401);
    expect(await ds.getRepository(Received).countBy({ id_user: user.id })).toBe(0);
    expectError(
      await api(t, other.apiKey).post(`/api/phone/${phone.id}/callback-token/`),
      404,
      CANNOT_UPDATE,
      /phone/,
    );
    const stored = await ds.getRepository(Phone).findOneByOrFail({ id: phone.id });
    expect(phone.status).toContain(stored.callback_token);
  });
});
