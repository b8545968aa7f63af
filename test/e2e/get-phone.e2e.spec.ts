import { randomBytes } from 'node:crypto';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { adapterDataScope } from '../../src/common/secrets/adapter-data-scope';
import { SecretCipher } from '../../src/common/secrets/secret-cipher';
import { sealFields } from '../../src/common/secrets/sealed-fields';
import { Phone } from '../../src/phones/entities/phone.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makePhoneLimit, makeUser } from '../support/factories';

/*
 * get_phone (docs/api.md#get_phone) over real HTTP against the real app, on every engine: the
 * phone as listed, with the stored values of its adapter's non-secret fields and the names of
 * the secrets that are set, and never a secret's value anywhere in the answer.
 */

const INVALID_CREDENTIALS = 1;
const INVALID_PARAMETER = 2;
const PUBLIC_URL = 'https://sms.example.org';
const PASSWORD = 'kannel-pw-Ä+/=9f3';
const TOKEN = 'twilio-token-7d2e+/';
const SID = 'AC00000000000000000000000000000042';

const KANNEL_DATA = {
  kannel_sendsms_url: 'http://kannel.example:13013/cgi-bin/sendsms',
  username: 'smsgw',
  password: PASSWORD,
  from: '+33612345678',
  dlr_url: 'http://dlr.example/receipt',
};

/** Every form a secret could take in a JSON body. */
function expectNowhere(response: Response, secret: string): void {
  for (const form of [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64'),
  ]) {
    expect(response.text).not.toContain(form);
  }
  // Nor its encrypted form, which a client has no use for.
  expect(response.text).not.toContain('enc:v1:');
}

describeEachDatabase('get_phone (GET /api/phone/{id}/)', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { PUBLIC_URL });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a Kannel phone as listed, with its non-secret data and its password only said to be set', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      name: 'kannel',
      adapter: 'kannel',
      adapter_data: JSON.stringify(KANNEL_DATA),
      priority: 3,
      rate: 0.5,
      callback_token: 'token-of-the-kannel-phone',
    });
    await makePhoneLimit(ds, phone.id, { volume: 100, startpoint: 'today' });

    const response = await api(t, apiKey).get(`/api/phone/${phone.id}/`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ error: 0, message: null, next: null, prev: null });
    const asListed = await api(t, apiKey).listed('phone', phone.id);
    // Kannel hides its data from listings (RaspiSMS's habit): get_phone adds it.
    expect(asListed).not.toHaveProperty('adapter_data');
    const { password: _password, ...visible } = KANNEL_DATA;
    expect(response.body.response).toEqual({
      ...asListed,
      adapter_data: visible,
      secrets_set: ['password'],
      unreadable_secrets: [],
      adapter_data_error: null,
    });
    expect(response.body.response).toMatchObject({
      id: phone.id,
      id_user: user.id,
      name: 'kannel',
      adapter: 'kannel',
      priority: 3,
      rate: 0.5,
      status: 'available',
      limits: [{ volume: 100, startpoint: 'today' }],
      callback_urls: {
        status: `${PUBLIC_URL}/callback/phone/status/?callback_token=token-of-the-kannel-phone`,
        reception: `${PUBLIC_URL}/callback/phone/reception/?callback_token=token-of-the-kannel-phone`,
      },
    });
    expect(response.body.response).not.toHaveProperty('callback_token');
    expectNowhere(response, PASSWORD);
  });

  it('answers a Twilio phone with its account SID and without its auth token', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      adapter: 'twilio',
      adapter_data: JSON.stringify({ account_sid: SID, auth_token: TOKEN, number: '+33612345678' }),
    });

    const response = await api(t, apiKey).get(`/api/phone/${phone.id}`);

    expect(response.status).toBe(200);
    expect(response.body.response).toMatchObject({
      adapter_data: { account_sid: SID, number: '+33612345678' },
      secrets_set: ['auth_token'],
      unreadable_secrets: [],
      adapter_data_error: null,
    });
    expectNowhere(response, TOKEN);
  });

  it('answers the data of an adapter that lists it as an object, the listing giving it as a JSON text', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { adapter: 'test', adapter_data: '{}' });

    const response = await api(t, apiKey).get(`/api/phone/${phone.id}/`);

    expect((await api(t, apiKey).listed('phone', phone.id))?.adapter_data).toBe('{}');
    expect(response.body.response).toMatchObject({
      adapter_data: {},
      secrets_set: [],
      unreadable_secrets: [],
      adapter_data_error: null,
    });
  });

  it('answers what it can of a phone whose password was encrypted with another key, saying what to do', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      adapter: 'kannel',
      adapter_data: JSON.stringify({ ...KANNEL_DATA, password: undefined }),
    });
    // What a lost SECRETS_KEY leaves: a password this server cannot open.
    const lostKey = new SecretCipher(randomBytes(32));
    const sealed = sealFields(lostKey, ['password'], KANNEL_DATA, adapterDataScope(phone));
    await ds
      .getRepository(Phone)
      .update({ id: phone.id }, { adapter_data: JSON.stringify(sealed) });

    const response = await api(t, apiKey).get(`/api/phone/${phone.id}/`);

    expect(response.status).toBe(200);
    const { password: _password, ...visible } = KANNEL_DATA;
    expect(response.body.response).toMatchObject({
      adapter_data: visible,
      secrets_set: [],
      unreadable_secrets: ['password'],
      adapter_data_error:
        "the phone's stored password cannot be decrypted (the server's secrets key changed, or " +
        'what is stored was altered): send it again with post_update_phone; the phone cannot ' +
        'send until then.',
    });
    expectNowhere(response, PASSWORD);
  });

  it('shows nothing of the data of an adapter this server no longer has, and says so', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      adapter: 'gone',
      adapter_data: JSON.stringify({ login: 'me', password: PASSWORD }),
    });

    const response = await api(t, apiKey).get(`/api/phone/${phone.id}/`);

    expect(response.status).toBe(200);
    expect(response.body.response).toMatchObject({
      adapter: 'gone',
      adapter_data: {},
      secrets_set: [],
      unreadable_secrets: [],
      adapter_data_error: expect.stringMatching(
        /^the phone's adapter "gone" is not one this server has: choose one of .*kannel/,
      ),
    });
    expectNowhere(response, PASSWORD);
  });

  it("answers another user's phone exactly like a nonexistent one: 404 INVALID_PARAMETER", async () => {
    const { apiKey } = await makeUser(ds);
    const { user: other } = await makeUser(ds);
    const foreign = await makePhone(ds, other.id);
    const missing = foreign.id + 1_000_000;

    const theirs = await api(t, apiKey).get(`/api/phone/${foreign.id}/`);
    const none = await api(t, apiKey).get(`/api/phone/${missing}/`);

    for (const [response, id] of [
      [theirs, foreign.id],
      [none, missing],
    ] as const) {
      expect({ status: response.status, body: response.body }).toEqual({
        status: 404,
        body: {
          error: INVALID_PARAMETER,
          message: `You have specified an invalid parameter : id : you have no phone ${id}.`,
          response: null,
          next: null,
          prev: null,
        },
      });
    }
  });

  it.each(['abc', '-1', '1.5'])('refuses the id %p with INVALID_PARAMETER', async (id) => {
    const { apiKey } = await makeUser(ds);

    const response = await api(t, apiKey).get(`/api/phone/${id}/`);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: INVALID_PARAMETER,
      message: expect.stringMatching(/^You have specified an invalid parameter : id /),
      response: null,
    });
  });

  it('answers 401 without an API key', async () => {
    const { user } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);

    const response = await request(t.url).get(`/api/phone/${phone.id}/`);

    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: INVALID_CREDENTIALS, response: null });
  });
});
