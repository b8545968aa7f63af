import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { FakeServer } from '../support/adapters.factories';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { FakeOctopush, startFakeOctopush } from '../support/fake-octopush';
import { FakeOdyssey, startFakeOdyssey } from '../support/fake-odyssey';
import { waitFor } from '../support/instruments';

/*
 * RaspiSMS's Octopush and Odyssey Messaging phones over the real app: created through the API
 * (credentials checked against the fakes), a message sent by the inline worker, then the
 * delivery receipt and an answer posted as the providers post them (JSON) to the RaspiSMS-style
 * callback URLs with the user's API key. Neither provider signs its callbacks.
 */

/** `adapter_data[name]=value` form fields, as RaspiSMS clients post them. */
function bracketed(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data).map(([name, value]) => [`adapter_data[${name}]`, value]),
  );
}

describeEachDatabase('Octopush and Odyssey Messaging phones', (database) => {
  let t: TestApp;
  let octopush: { fake: FakeOctopush; server: FakeServer };
  let odyssey: { fake: FakeOdyssey; server: FakeServer };

  beforeAll(async () => {
    octopush = await startFakeOctopush();
    odyssey = await startFakeOdyssey();
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      OCTOPUSH_API_URL: octopush.server.url,
      ODYSSEY_API_URL: odyssey.server.url,
    });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([octopush?.server.close(), odyssey?.server.close()]);
  });

  const createPhone = (apiKey: string, adapter: string, data: Record<string, string>) =>
    api(t, apiKey, 'query')
      .post('/api/phone/')
      .type('form')
      .send({ name: `${adapter} phone`, adapter, ...bracketed(data) });

  const list = async (apiKey: string, type: string) =>
    (await api(t, apiKey, 'query').get(`/api/list/${type}/`)).body.response as Array<
      Record<string, unknown>
    >;

  /** Sends one message through the phone and waits for its sent entry. */
  const sendThrough = async (apiKey: string, phoneId: number, destination: string) => {
    const scheduled = await api(t, apiKey, 'query')
      .post('/api/scheduled/')
      .type('form')
      .send({ text: 'Hello', 'numbers[]': destination, id_phone: String(phoneId) });
    expect(scheduled.status).toBe(201);
    await waitFor(async () => (await list(apiKey, 'sended')).length === 1, 'the sent entry');
    return (await list(apiKey, 'sended'))[0];
  };

  describe.each([
    ['octopush_shortcode', 'adapters\\OctopushShortcodeAdapter', 'octopush_shortcode_adapter'],
    [
      'octopush_virtual_number',
      'adapters\\OctopushVirtualNumberAdapter',
      'octopush_virtual_number_adapter',
    ],
  ])('%s', (id, alias, callbackId) => {
    const data = FakeOctopush.data(
      id === 'octopush_virtual_number' ? { number: '+33611000001' } : {},
    );

    it('refuses a phone whose credentials Octopush refuses, saying which fields to check', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await createPhone(apiKey, alias, { ...data, api_key: 'wrong' });

      expect(response.status).toBe(422);
      expect(response.body.message).toContain('check login and api_key');
    });

    it('sends, then applies the receipt and stores the answer Octopush posts', async () => {
      const { apiKey } = await makeUser(t.dataSource);
      const created = await createPhone(apiKey, alias, data);
      expect(created.status).toBe(201);
      const phoneId = created.body.response as number;
      const before = octopush.fake.campaigns.length;

      const sent = await sendThrough(apiKey, phoneId, '+33612345678');

      expect(sent).toMatchObject({ adapter: id, destination: '+33612345678', status: 'unknown' });
      expect(octopush.fake.campaigns.slice(before)).toEqual([
        expect.objectContaining({
          text: 'Hello',
          recipients: [{ phone_number: '+33612345678' }],
          type: 'sms_low_cost',
        }),
      ]);

      const receipt = await api(t, apiKey, 'query')
        .post(`/callback/status/${callbackId}/`)
        .send({ message_id: sent.uid, number: '+33612345678', status: 'DELIVERED' });
      expect(receipt.status).toBe(200);
      expect((await list(apiKey, 'sended'))[0]).toMatchObject({ status: 'delivered' });

      const answer = await api(t, apiKey, 'query')
        .post(`/callback/reception/${callbackId}/${phoneId}/`)
        .send({
          number: '+33612345679',
          text: 'Thanks',
          reception_date: '2026-01-15 09:30:00',
          message_id: 'mo_1',
        });
      expect(answer.status).toBe(200);
      expect(await list(apiKey, 'received')).toEqual([
        expect.objectContaining({
          id_phone: phoneId,
          origin: '+33612345679',
          text: 'Thanks',
          at: '2026-01-15 08:30:00',
        }),
      ]);
    });
  });

  it("records a failed entry with Octopush's reason when it refuses the message", async () => {
    const { apiKey } = await makeUser(t.dataSource);
    const created = await createPhone(apiKey, 'octopush_shortcode', FakeOctopush.data());
    expect(created.status).toBe(201);
    octopush.fake.reply = ({ path }) =>
      path === '/sms-campaign/send'
        ? { status: 400, body: { code: 113, message: 'Not enough credit' } }
        : null;

    try {
      const failed = await sendThrough(apiKey, created.body.response as number, '+33612345678');

      expect(failed).toMatchObject({
        status: 'failed',
        error:
          'Octopush refused the message (HTTP 400: Not enough credit (code 113)): check the message and the adapter data.',
      });
    } finally {
      octopush.fake.reply = null;
    }
  });

  describe('odyssey_messaging', () => {
    it('refuses a phone whose credentials Odyssey refuses, saying which fields to check', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await createPhone(apiKey, 'adapters\\OdysseyMessagingAdapter', {
        ...FakeOdyssey.data(),
        password: 'wrong',
      });

      expect(response.status).toBe(422);
      expect(response.body.message).toContain('check login and password');
    });

    it('sends, then applies the receipt and stores the answer Odyssey posts', async () => {
      const { apiKey } = await makeUser(t.dataSource);
      const created = await createPhone(
        apiKey,
        'adapters\\OdysseyMessagingAdapter',
        FakeOdyssey.data({ sender: 'SMSGW' }),
      );
      expect(created.status).toBe(201);
      const phoneId = created.body.response as number;

      const sent = await sendThrough(apiKey, phoneId, '+33612345678');

      expect(sent).toMatchObject({ adapter: 'odyssey_messaging', status: 'unknown' });
      expect(odyssey.fake.jobs.at(-1)).toMatchObject({
        AdhocRecipients: [{ Address: '0033612345678' }],
        Parameter: { Sender: 'SMSGW', Media: 1 },
      });

      const receipt = await api(t, apiKey, 'query')
        .post('/callback/status/odyssey_messaging_adapter/')
        .send({ EventType: 9, JobNumber: Number(sent.uid), Outcome: 'S' });
      expect(receipt.status).toBe(200);
      expect((await list(apiKey, 'sended'))[0]).toMatchObject({ status: 'delivered' });

      const answer = await api(t, apiKey, 'query')
        .post(`/callback/reception/odyssey_messaging_adapter/${phoneId}/`)
        .send({
          EventType: 8,
          From: '0033612345679',
          Message: 'Oui',
          EventDateTime: '/Date(1767268800000+0100)/',
        });
      expect(answer.status).toBe(200);
      expect(await list(apiKey, 'received')).toEqual([
        expect.objectContaining({
          id_phone: phoneId,
          origin: '+33612345679',
          text: 'Oui',
          at: '2026-01-01 12:00:00',
        }),
      ]);
    });
  });
});
