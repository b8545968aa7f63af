import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { FakeServer, sendJson, startFakeServer } from '../support/adapters.factories';
import { describeEachDatabase } from '../support/databases';
import { makeContact, makeSended, makeUser } from '../support/factories';
import { storedScheduled } from '../support/scheduled.factories';

/*
 * A `+` typed in a form or a query is a `+` (docs/api-choices.md#a-plus-sign-decoded-as-a-space):
 * every place that reads a phone number, reached over real HTTP with the `+` left unencoded as
 * `curl -d number=+336…` and `?to=+336…` send it, on every engine. The form decodes that `+` as
 * a space; a number starting with one space and a digit is read as the `+` that was typed.
 */

const NUMBER = '+33612345678';
const TWILIO_NUMBER = '+14155552671';
const SID = 'AC00000000000000000000000000000021';

describeEachDatabase('a + typed in a form or a query', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let twilio: FakeServer;
  /** The numbers Twilio's fake was asked about. */
  const asked: string[] = [];

  beforeAll(async () => {
    twilio = await startFakeServer((incoming, response) => {
      asked.push(new URL(incoming.url ?? '/', twilio.url).searchParams.get('PhoneNumber') ?? '');
      sendJson(response, 200, { incoming_phone_numbers: [{ phone_number: TWILIO_NUMBER }] });
    });
    t = await startApp(database(), { TWILIO_API_URL: twilio.url });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t?.close();
    await twilio?.close();
  });

  const contactNumber = async (apiKey: string, id: number) =>
    ((await api(t, apiKey).get(`/api/contact/${id}/`)).body as { response: { number: string } })
      .response.number;
  const idOf = (response: Response, status: number): number => {
    expect({ status: response.status, error: (response.body as { error: number }).error }).toEqual({
      status,
      error: 0,
    });
    return (response.body as { response: number }).response;
  };

  it('reads numbers of post_scheduled sent in a form body and in the query string', async () => {
    const { apiKey } = await makeUser(ds);

    const body = await api(t, apiKey).form('/api/scheduled/').send(`text=Hi&numbers[]=${NUMBER}`);
    const query = await api(t, apiKey).post(`/api/scheduled/?numbers[]=+33612345679&text=Hi`);

    expect((await storedScheduled(ds, idOf(body, 201))).numbers).toEqual([
      { number: NUMBER, data: '[]' },
    ]);
    expect((await storedScheduled(ds, idOf(query, 201))).numbers).toEqual([
      { number: '+33612345679', data: '[]' },
    ]);
  });

  it('reads the to of get_send_sms sent in the query string', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await api(t, apiKey).get(`/api/send-sms/?to=${NUMBER}&text=Hi`);

    expect((await storedScheduled(ds, idOf(response, 200))).numbers).toEqual([
      { number: NUMBER, data: '[]' },
    ]);
  });

  it('reads a numbers_csv cell that starts with one space', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await api(t, apiKey)
      .post('/api/scheduled/')
      .field('text', 'Hi')
      .attach('numbers_csv', Buffer.from(`number,firstname\n ${NUMBER.slice(1)},Ann\n`), 'n.csv');

    expect((await storedScheduled(ds, idOf(response, 201))).numbers).toEqual([
      { number: NUMBER, data: '{"firstname":"Ann"}' },
    ]);
  });

  it('reads the number of post_contact and of the contact update', async () => {
    const { apiKey } = await makeUser(ds);

    const id = idOf(
      await api(t, apiKey).form('/api/contact/').send(`name=Alice&number=${NUMBER}`),
      201,
    );
    expect(await contactNumber(apiKey, id)).toBe(NUMBER);

    const updated = await api(t, apiKey).form(`/api/contact/${id}/`).send('number=+33612345679');
    expect(updated.status).toBe(200);
    expect(await contactNumber(apiKey, id)).toBe('+33612345679');
  });

  it('reads the number cells of a contact import, and its bracket fields', async () => {
    const { apiKey } = await makeUser(ds);

    const csv = await api(t, apiKey)
      .post('/api/contact/import/')
      .attach('contacts_csv', Buffer.from(`name,number\nBob, ${NUMBER.slice(1)}\n`), 'c.csv');
    const fields = await api(t, apiKey)
      .form('/api/contact/import/')
      .send('contacts[0][name]=Carl&contacts[0][number]=+33612345679');

    expect([csv.status, csv.body.response]).toEqual([200, { created: 1, updated: 0 }]);
    expect([fields.status, fields.body.response]).toEqual([200, { created: 1, updated: 0 }]);
    const listed = (await api(t, apiKey).get('/api/list/contact/')).body as {
      response: Array<{ name: string; number: string }>;
    };
    expect(listed.response.map(({ name, number }) => ({ name, number }))).toEqual([
      { name: 'Bob', number: NUMBER },
      { name: 'Carl', number: '+33612345679' },
    ]);
  });

  it('reads an adapter data number field (twilio’s number)', async () => {
    const { apiKey } = await makeUser(ds);
    asked.length = 0;

    const response = await api(t, apiKey)
      .form('/api/phone/')
      .send(
        `name=twilio&adapter=twilio&adapter_data[account_sid]=${SID}` +
          `&adapter_data[auth_token]=token&adapter_data[number]=${TWILIO_NUMBER}`,
      );

    idOf(response, 201);
    expect(asked).toEqual([TWILIO_NUMBER]);
  });

  it('reads the number filters of get_entries in the query string', async () => {
    const { user, apiKey } = await makeUser(ds);
    const sent = await makeSended(ds, user.id, { destination: NUMBER });
    await makeSended(ds, user.id, { destination: '+33612345679' });
    const contact = await makeContact(ds, user.id, { number: NUMBER });

    const sended = await api(t, apiKey).get(`/api/list/sended/?destination=${NUMBER}`);
    const contacts = await api(t, apiKey).get(`/api/list/contact/?number=${NUMBER}`);

    expect([sended.status, (sended.body as { response: Array<{ id: number }> }).response]).toEqual([
      200,
      [expect.objectContaining({ id: sent.id })],
    ]);
    expect([
      contacts.status,
      (contacts.body as { response: Array<{ id: number }> }).response,
    ]).toEqual([200, [expect.objectContaining({ id: contact.id })]]);
  });

  it('reads the number added to the STOP list', async () => {
    const { apiKey } = await makeUser(ds);

    const response = await api(t, apiKey).form('/api/stop/').send(`number=${NUMBER}`);

    expect(response.status).toBe(201);
    const stops = (await api(t, apiKey).get('/api/stop/')).body as {
      response: Array<{ number: string }>;
    };
    expect(stops.response.map((row) => row.number)).toEqual([NUMBER]);
  });

  it('still refuses two spaces, or one space before anything but a digit', async () => {
    const { apiKey } = await makeUser(ds);

    for (const number of ['++33612345678', '+a33612345678']) {
      const response = await api(t, apiKey).form('/api/contact/').send(`name=x&number=${number}`);
      expect({ status: response.status, body: response.body as unknown }).toMatchObject({
        status: 400,
        body: { error: 2, message: expect.stringContaining('is not a valid phone number') },
      });
    }
  });
});
