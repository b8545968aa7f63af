import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request, { Response } from 'supertest';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';

/*
 * The HTTP status of every operation that creates something, as the README's table of statuses
 * states it ("Where smsgw differs from RaspiSMS"): each operation is performed over HTTP and its
 * status compared with the table, and the README is read to check that it still says so.
 */

/** One creating operation: what the README calls it, and how to perform it. */
interface Creation {
  operationId: string;
  /** How the README's list after the table names it. */
  readme: string;
  status: 200 | 201;
  perform(t: TestApp, apiKey: string): Promise<Response>;
}

const post = (t: TestApp, path: string, apiKey: string, body: Record<string, unknown>) =>
  api(t, apiKey).post(path).send(body);

/** The id of a webhook created for the operations that need one. */
const newWebhook = async (t: TestApp, apiKey: string): Promise<number> => {
  const response = await post(t, '/api/webhook/', apiKey, {
    url: 'https://203.0.113.10/smsgw',
    type: 'send_sms',
  });
  return (response.body as { response: number }).response;
};

const CREATIONS: Creation[] = [
  {
    operationId: 'post_scheduled',
    readme: 'post_scheduled',
    status: 201,
    perform: (t, apiKey) =>
      post(t, '/api/scheduled/', apiKey, { text: 'Hello', numbers: ['+33612345678'] }),
  },
  {
    operationId: 'post_phone',
    readme: 'post_phone',
    status: 201,
    perform: (t, apiKey) => post(t, '/api/phone/', apiKey, { name: 'Phone', adapter: 'test' }),
  },
  {
    operationId: 'post_contact',
    readme: 'a contact',
    status: 201,
    perform: (t, apiKey) =>
      post(t, '/api/contact/', apiKey, { name: 'Alice', number: '+33612345679' }),
  },
  {
    operationId: 'post_group',
    readme: 'a group',
    status: 201,
    perform: (t, apiKey) => post(t, '/api/group/', apiKey, { name: 'Friends' }),
  },
  {
    operationId: 'post_conditional_group',
    readme: 'a conditional group',
    status: 201,
    perform: (t, apiKey) =>
      post(t, '/api/conditional_group/', apiKey, { name: 'Everyone', condition: '1 == 1' }),
  },
  {
    operationId: 'post_phone_group',
    readme: 'a phone group',
    status: 201,
    perform: (t, apiKey) => post(t, '/api/phone_group/', apiKey, { name: 'Phones' }),
  },
  {
    operationId: 'post_webhook',
    readme: 'a webhook',
    status: 201,
    perform: (t, apiKey) =>
      post(t, '/api/webhook/', apiKey, { url: 'https://203.0.113.10/hook', type: 'quota' }),
  },
  {
    operationId: 'post_stop',
    readme: 'a number new to the STOP list',
    status: 201,
    perform: (t, apiKey) => post(t, '/api/stop/', apiKey, { number: '+33612345670' }),
  },
  {
    operationId: 'get_send_sms',
    readme: 'get_send_sms',
    status: 200,
    perform: (t, apiKey) =>
      api(t, apiKey).get('/api/send-sms/').query({ to: '+33612345671', text: 'Hi' }),
  },
  {
    operationId: 'post_import_contacts',
    readme: 'the contact import',
    status: 200,
    perform: (t, apiKey) =>
      post(t, '/api/contact/import/', apiKey, {
        contacts: [{ name: 'Bob', number: '+33612345672' }],
      }),
  },
  {
    operationId: 'post_stop',
    readme: 'a number already on the STOP list',
    status: 200,
    perform: async (t, apiKey) => {
      await post(t, '/api/stop/', apiKey, { number: '+33612345673' });
      return post(t, '/api/stop/', apiKey, { number: '+33612345673' });
    },
  },
  {
    operationId: 'post_webhook_test',
    readme: "a webhook's test",
    status: 200,
    perform: async (t, apiKey) =>
      post(t, `/api/webhook/${await newWebhook(t, apiKey)}/test/`, apiKey, {}),
  },
];

/** The README's list of the creations that answer 201, then of those that answer 200. */
function readmeCreations(): Record<200 | 201, string> {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8').replace(
    /\s+/g,
    ' ',
  );
  const lists = /The creations that answer 201: (.*?)\. Those that answer 200: (.*?)\. /.exec(
    readme,
  );
  expect(lists).not.toBeNull();
  return { 201: lists?.[1] ?? '', 200: lists?.[2] ?? '' };
}

describeEachDatabase('the HTTP status of each creation', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(CREATIONS.map((creation) => [creation.readme, creation.status, creation] as const))(
    'answers %s with HTTP %i and error 0, as the README says',
    async (readme, status, creation) => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await creation.perform(t, apiKey);

      expect({
        status: response.status,
        error: (response.body as { error: number }).error,
      }).toEqual({ status, error: 0 });
      expect(readmeCreations()[status]).toContain(readme);
    },
  );

  it("states in the README's table a 201 for creations and a 200 for get_send_sms and the import", () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

    expect(readme).toMatch(
      /\| success of a creation \(post_scheduled, post_phone, …\) +\| 201 +\| 0 +\|/,
    );
    expect(readme).toMatch(/\| success of get_send_sms or of the contact import +\| 200 +\| 0 +\|/);
  });

  it('covers every operation that the OpenAPI document says answers 201', async () => {
    const document = (await request(t.url).get('/api/docs-json')).body as {
      paths: Record<string, Record<string, { operationId: string; responses: object }>>;
    };
    const documented = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .filter((operation) => '201' in operation.responses)
      .map((operation) => operation.operationId);

    expect([...new Set(documented)].sort()).toEqual(
      [...new Set(CREATIONS.filter((c) => c.status === 201).map((c) => c.operationId))].sort(),
    );
  });
});
