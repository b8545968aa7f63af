import request from 'supertest';
import { AdapterRegistry } from '../../src/adapters/adapter.registry';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  expectError,
  expectSuccess,
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  SUSPENDED_USER,
} from '../support/envelope';
import { makeUser } from '../support/factories';

/*
 * get_adapters (docs/api.md#get_adapters) over real HTTP against the real app, on every database
 * engine: the registry's descriptors as a client builds a phone's form from them.
 */
describeEachDatabase('get_adapters', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (apiKey: string) => api(t, apiKey).get('/api/adapter/');

  it('lists every registered adapter, in order, with its fields and capabilities', async () => {
    const { apiKey } = await makeUser(t.dataSource);

    const response = await list(apiKey);

    const registered = t.app.get(AdapterRegistry).adapters;
    expectSuccess(
      response,
      200,
      registered.map(({ descriptor, capabilities }) => ({
        id: descriptor.id,
        alias: descriptor.alias,
        name: descriptor.name,
        description: descriptor.description,
        hide_data: descriptor.hideData,
        fields: descriptor.fields.map((field) => ({
          name: field.name,
          description: field.description,
          required: field.required,
          secret: field.secret ?? false,
          number: field.number ?? false,
        })),
        capabilities: { flash: capabilities.flash, mms: capabilities.mms },
      })),
    );
  });

  it("describes Twilio's fields as the console must show them: the token secret, the number a number", async () => {
    const { apiKey } = await makeUser(t.dataSource);

    const adapters = (await list(apiKey)).body.response as Array<Record<string, unknown>>;

    expect(adapters.find((adapter) => adapter.id === 'twilio')).toEqual({
      id: 'twilio',
      alias: expect.stringMatching(/^adapters\\/),
      name: expect.any(String),
      description: expect.any(String),
      hide_data: true,
      fields: [
        expect.objectContaining({ name: 'account_sid', required: true, secret: false }),
        expect.objectContaining({ name: 'auth_token', required: true, secret: true }),
        expect.objectContaining({ name: 'number', required: true, number: true, secret: false }),
        expect.objectContaining({ name: 'status_change_callback', required: false }),
      ],
      capabilities: { flash: false, mms: true },
    });
    expect(adapters.find((adapter) => adapter.id === 'test')).toMatchObject({
      alias: 'adapters\\TestAdapter',
      hide_data: false,
    });
  });

  it('takes the key from the query string as from the header', async () => {
    const { apiKey } = await makeUser(t.dataSource);
    const withKey = (await list(apiKey)).body as unknown;

    const withQueryKey = await api(t, apiKey, 'query').get('/api/adapter');

    expect(withQueryKey.body).toEqual(withKey);
  });

  it('refuses a request without a key, or with a wrong one, with INVALID_CREDENTIALS', async () => {
    expectError(await request(t.url).get('/api/adapter/'), 401, INVALID_CREDENTIALS, /./);
    expectError(await list('not a key'), 401, INVALID_CREDENTIALS, /./);
  });

  it("refuses a suspended user's key with SUSPENDED_USER", async () => {
    const { apiKey } = await makeUser(t.dataSource, { status: 'suspended' });

    expectError(await list(apiKey), 403, SUSPENDED_USER, /./);
  });

  it('answers another method at its path with the envelope naming GET', async () => {
    const { apiKey } = await makeUser(t.dataSource);

    const response = await api(t, apiKey).post('/api/adapter/');

    expectError(response, 404, INVALID_PARAMETER, /this path serves GET/);
  });
});
