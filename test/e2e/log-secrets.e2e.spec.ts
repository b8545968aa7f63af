import request from 'supertest';
import { migrate } from '../../src/database/data-source';
import { User } from '../../src/users/entities/user.entity';
import { hashPassword } from '../../src/users/password';
import { openTestDataSource } from '../support/app';
import { api } from '../support/api-client';
import {
  FakeOvh,
  FakeServer,
  closedPort,
  sendJson,
  startFakeServer,
} from '../support/adapters.factories';
import { BuiltApp, requireBuild, startBuiltApp } from '../support/built-app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * No secret in any log line, proven on the built app at LOG_LEVEL=trace with its whole output
 * captured: provider credentials and API keys travel through every source a POST reads (query
 * string, urlencoded form, JSON, multipart) and the X-Api-Key header, under odd parameter names
 * too, into requests that succeed and requests that fail (bad adapter data, a provider refusing
 * them, an unreachable provider, a failure of the server logged with its error); messages are
 * dispatched through the providers and their receipts come back. Console passwords, session
 * tokens (cookie and Set-Cookie) and CSRF tokens go through sign-ins, session requests, password
 * and key changes and logouts. Afterwards no secret value appears in the output, raw or encoded.
 */

const KANNEL_PASSWORD = 'kannel-Pw+/=é7c1';
const KANNEL_WRONG = 'kannel-wrong-4e9b';
const KANNEL_JSON_WRONG = 'kannel-json-8a3f';
const KANNEL_NEW_PASSWORD = 'kannel-new-2d6e';
const TWILIO_SID = 'AC00000000000000000000000000000001';
const TWILIO_TOKEN = 'twilio-token-5f0a+/9';
const TWILIO_WRONG = 'twilio-wrong-71c3';
const OVH_WRONG_CONSUMER = 'ovh-wrong-consumer-0b5d';
const SMPP_PASSWORD = 'smpp-pw-3c8e';
const GAMMU_PIN = '93716482';
const GENERIC_SECRET = 'generic-secret-6a1f';
const NESTED_SECRET = 'nested-secret-9e2c';
const FOREIGN_KEY = 'f0f0f0f0e1e1e1e1d2d2d2d2c3c3c3c3';
const FAILING_PASSWORD = 'failing-pw-4d7a';
const WEBHOOK_SECRET = 'webhook-secret-1b8d+/=';
const STANDARD_SECRET = `whsec_${Buffer.alloc(24, 'w').toString('base64')}`;
const UPDATED_SECRET = 'webhook-updated-5c2a';
const NUMBER = '+33612345678';
const CONSOLE_PASSWORD = 'console-Pw+/=é-3f9a';
const CONSOLE_WRONG = 'console-wrong-8c1e';
const CONSOLE_NEW_PASSWORD = 'console-new-6b2d';

/** The forms a value may take in a log line: as is, percent-encoded, form-encoded, JSON. */
function encodings(value: string): string[] {
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
  ];
}

/** Kannel's sendsms: 403 for credentials other than smsgw / the password, 202 for a send. */
function kannelFake(password: () => string): Promise<FakeServer> {
  return startFakeServer((incoming, response) => {
    const query = new URL(incoming.url ?? '/', 'http://kannel').searchParams;
    const status =
      query.get('username') !== 'smsgw' || query.get('password') !== password()
        ? 403
        : query.get('to')
          ? 202
          : 400;
    response.writeHead(status, { 'Content-Type': 'text/plain' });
    response.end(status === 202 ? '0: Accepted for delivery' : 'Authorization failed');
  });
}

/** Twilio's REST API: Basic auth with the SID and token, one number, messages accepted. */
function twilioFake(): Promise<FakeServer> {
  const expected = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`;
  return startFakeServer((incoming, response) => {
    if (incoming.headers.authorization !== expected) {
      sendJson(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
    } else if (incoming.method === 'POST') {
      sendJson(response, 201, { sid: 'SM00000000000000000000000000000001', status: 'queued' });
    } else if ((incoming.url ?? '').includes('IncomingPhoneNumbers')) {
      sendJson(response, 200, { incoming_phone_numbers: [{ phone_number: NUMBER }] });
    } else {
      sendJson(response, 200, { status: 'active' });
    }
  });
}

describeEachDatabase('no secret in any log line (built app, LOG_LEVEL=trace)', (database) => {
  let kannel: FakeServer;
  let twilio: FakeServer;
  let ovhServer: FakeServer;
  let app: BuiltApp;
  let apiKey: string;
  let email: string;
  let output = '';
  let kannelPassword = KANNEL_PASSWORD;

  beforeAll(async () => {
    requireBuild();
    kannel = await kannelFake(() => kannelPassword);
    twilio = await twilioFake();
    const ovh = new FakeOvh(() => ovhServer.url);
    ovhServer = await startFakeServer(ovh.handle);
    const ds = await openTestDataSource(database());
    await migrate(ds);
    const made = await makeUser(ds);
    apiKey = made.apiKey;
    email = made.user.email;
    await ds
      .getRepository(User)
      .update({ id: made.user.id }, { password_hash: await hashPassword(CONSOLE_PASSWORD) });
    await ds.destroy();
    app = await startBuiltApp(
      {
        DATABASE_URL: database().url,
        DATA_DIR: database().dataDir,
        LOG_LEVEL: 'trace',
        WORKER: 'inline',
        DISPATCH_POLL_MS: '50',
        PUBLIC_URL: 'https://sms.example.org',
        PROVIDER_TIMEOUT_MS: '3000',
        TWILIO_API_URL: twilio.url,
        OVH_API_URL: ovhServer.url,
      },
      database().dataDir,
    );
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await Promise.all([kannel?.close(), twilio?.close(), ovhServer?.close()]);
  });

  const kannelData = (password: string) => ({
    kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
    username: 'smsgw',
    password,
    from: 'smsgw',
  });
  const bracketed = (data: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(data).map(([name, value]) => [`adapter_data[${name}]`, value]),
    );

  let callbackToken = '';

  it('sends secrets through every source, and none of them reaches the log', async () => {
    // Kannel, everything in the query string of a POST.
    const viaQuery = await request(app.url)
      .post('/api/phone/')
      .query({
        api_key: apiKey,
        name: 'kannel',
        adapter: 'kannel',
        ...bracketed(kannelData(KANNEL_PASSWORD)),
      });
    expect(viaQuery.status).toBe(201);
    const kannelPhone = viaQuery.body.response as number;
    // Read back: get_phone opens the data to say which secrets are set, and logs none of them.
    const readBack = await request(app.url)
      .get(`/api/phone/${kannelPhone}/`)
      .query({ api_key: apiKey });
    expect(readBack.body.response).toMatchObject({ secrets_set: ['password'] });
    expect(readBack.text).not.toContain(KANNEL_PASSWORD);
    // Refused by the provider: an urlencoded form, a multipart body, a JSON object in a string.
    expect(
      (
        await api(app, apiKey)
          .post('/api/phone/')
          .type('form')
          .send({ name: 'k2', adapter: 'kannel', ...bracketed(kannelData(KANNEL_WRONG)) })
      ).status,
    ).toBe(422);
    let multipart = api(app, apiKey)
      .post('/api/phone/')
      .field('name', 'k3')
      .field('adapter', 'kannel');
    for (const [name, value] of Object.entries(bracketed(kannelData(KANNEL_WRONG)))) {
      multipart = multipart.field(name, value);
    }
    expect((await multipart).status).toBe(422);
    expect(
      (
        await request(app.url)
          .post('/api/phone/')
          .query({
            api_key: apiKey,
            name: 'k4',
            adapter: 'kannel',
            adapter_data: JSON.stringify(kannelData(KANNEL_JSON_WRONG)),
          })
      ).status,
    ).toBe(422);
    // Bad adapter data: `from` missing.
    expect(
      (
        await request(app.url).post('/api/phone/').query({
          api_key: apiKey,
          name: 'k5',
          adapter: 'kannel',
          'adapter_data[password]': KANNEL_WRONG,
        })
      ).status,
    ).toBe(400);
    // Updates: refused, then accepted, with the new password in the query string.
    expect(
      (
        await api(app, apiKey)
          .post(`/api/phone/${kannelPhone}/`)
          .type('form')
          .send({ 'adapter_data[password]': KANNEL_WRONG })
      ).status,
    ).toBe(422);
    kannelPassword = KANNEL_NEW_PASSWORD;
    expect(
      (
        await request(app.url)
          .post(`/api/phone/${kannelPhone}/`)
          .query({ api_key: apiKey, 'adapter_data[password]': KANNEL_NEW_PASSWORD })
      ).status,
    ).toBe(200);
    expect((await api(app, apiKey).post(`/api/phone/${kannelPhone}/status/`)).body.response).toBe(
      'available',
    );

    // Twilio: JSON body accepted, form refused.
    const twilioData = { account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, number: NUMBER };
    const viaJson = await api(app, apiKey).post('/api/phone/').send({
      name: 'twilio',
      adapter: 'twilio',
      adapter_data: twilioData,
    });
    expect(viaJson.status).toBe(201);
    const twilioPhone = viaJson.body.response as number;
    expect(
      (
        await api(app, apiKey)
          .post('/api/phone/')
          .type('form')
          .send({
            name: 't2',
            adapter: 'twilio',
            ...bracketed({ ...twilioData, auth_token: TWILIO_WRONG }),
          })
      ).status,
    ).toBe(422);

    // OVH: multipart accepted, a wrong consumer key in the query refused.
    const ovhData = FakeOvh.data({ number: NUMBER });
    let ovhForm = api(app, apiKey)
      .post('/api/phone/')
      .field('name', 'ovh')
      .field('adapter', 'ovh_virtual_number');
    for (const [name, value] of Object.entries(bracketed(ovhData))) {
      ovhForm = ovhForm.field(name, value);
    }
    expect((await ovhForm).status).toBe(201);
    expect(
      (
        await request(app.url)
          .post('/api/phone/')
          .query({
            api_key: apiKey,
            name: 'o2',
            adapter: 'ovh_virtual_number',
            ...bracketed({ ...ovhData, consumer_key: OVH_WRONG_CONSUMER }),
          })
      ).status,
    ).toBe(422);

    // SMPP to a port where nothing listens, gammu without its configuration file.
    const smpp = {
      host: '127.0.0.1',
      port: String(await closedPort()),
      system_id: 'smsgw',
      password: SMPP_PASSWORD,
      source_addr: NUMBER,
    };
    expect(
      (
        await api(app, apiKey)
          .post('/api/phone/')
          .type('form')
          .send({ name: 's', adapter: 'smpp', ...bracketed(smpp) })
      ).status,
    ).toBe(422);
    expect(
      (
        await request(app.url).post('/api/phone/').query({
          api_key: apiKey,
          name: 'g',
          adapter: 'gammu',
          'adapter_data[config_file]': '/nonexistent/gammurc',
          'adapter_data[pin]': GAMMU_PIN,
        })
      ).status,
    ).toBe(422);

    // API keys under names the query parser also reads, and generic secrets.
    for (const query of [
      `__proto__[api_key]=${FOREIGN_KEY}`,
      `x[api_key]=${FOREIGN_KEY}`,
      `api_key[]=${FOREIGN_KEY}`,
      `api%5Fkey=${FOREIGN_KEY}`,
      `api%5fkey[0]=${FOREIGN_KEY}`,
      `secret=${GENERIC_SECRET}&api_key=${apiKey}`,
      `webhook[secret]=${NESTED_SECRET}&api_key=${apiKey}`,
    ]) {
      await request(app.url).get(`/api/list/phone/?${query}`);
      await request(app.url).post(`/api/phone/?${query}`).set('X-Api-Key', FOREIGN_KEY);
    }

    // Sends through Kannel and Twilio, and Twilio's receipt.
    for (const id_phone of [kannelPhone, twilioPhone]) {
      expect(
        (
          await api(app, apiKey)
            .post('/api/scheduled/')
            .send({ text: 'Hello', numbers: [NUMBER], id_phone })
        ).status,
      ).toBe(201);
    }
    await waitFor(
      async () => (await api(app, apiKey).list('sended')).length === 2,
      'the two sent entries',
    );
    await request(app.url)
      .post(`/callback/status/twilio/?api_key=${apiKey}`)
      .type('form')
      .set('X-Twilio-Signature', 'not-a-signature')
      .send({ MessageSid: 'SM00000000000000000000000000000001', MessageStatus: 'delivered' });
    // A status check the provider refuses.
    kannelPassword = 'changed-on-the-provider';
    expect((await api(app, apiKey).post(`/api/phone/${kannelPhone}/status/`)).body.response).toBe(
      'unavailable',
    );

    // Webhooks: secrets given in a query string, a form and JSON, then used to sign deliveries
    // that fail (an endpoint answering 403, a closed port) and are logged as they go.
    const gone = await closedPort();
    const hooks: number[] = [];
    for (const [created, url] of [
      [
        api(app, apiKey)
          .post('/api/webhook/')
          .query({
            url: `${kannel.url}/hook`,
            type: 'receive_sms',
            secret: WEBHOOK_SECRET,
          }),
        `${kannel.url}/hook`,
      ],
      [
        api(app, apiKey)
          .post('/api/webhook/')
          .type('form')
          .send({
            url: `http://127.0.0.1:${gone}/`,
            type: 'send_sms',
            format: 'standard',
            secret: STANDARD_SECRET,
          }),
        `http://127.0.0.1:${gone}/`,
      ],
    ] as const) {
      const answer = await created;
      expect({ url, status: answer.status }).toEqual({ url, status: 201 });
      hooks.push(answer.body.response as number);
    }
    expect(
      (await api(app, apiKey).post(`/api/webhook/${hooks[0]}/`).send({ secret: UPDATED_SECRET }))
        .status,
    ).toBe(200);
    for (const hook of hooks) {
      expect((await api(app, apiKey).post(`/api/webhook/${hook}/test/`)).status).toBe(200);
    }
    await waitFor(async () => {
      const logs = await Promise.all(
        hooks.map(
          async (hook) =>
            (
              await request(app.url)
                .get(`/api/webhook/${hook}/deliveries/`)
                .query({ api_key: apiKey })
            ).body.response as Array<{ attempts: number }>,
        ),
      );
      return logs.every((log) => log.length > 0 && log[0].attempts > 0);
    }, 'the webhook deliveries attempted');

    // A phone's callback token, in the URLs its provider calls.
    const listedPhones = await api(app, apiKey).list('phone');
    const callbackUrl = (listedPhones[0].callback_urls as { status: string }).status;
    callbackToken = new URL(callbackUrl).searchParams.get('callback_token') ?? '';
    expect(callbackToken).toMatch(/^[\w-]{32}$/);
    await request(app.url)
      .get(new URL(callbackUrl).pathname + new URL(callbackUrl).search)
      .query({ uid: 'none', status: 'delivered' })
      .expect(200);

    // A failure of the server's own (its limits table is gone), logged with its error.
    const ds = await openTestDataSource(database());
    await ds.query('DROP TABLE phone_limit');
    await ds.destroy();
    kannelPassword = FAILING_PASSWORD;
    expect(
      (
        await request(app.url)
          .post('/api/phone/')
          .query({
            api_key: apiKey,
            name: 'k500',
            adapter: 'kannel',
            ...bracketed(kannelData(FAILING_PASSWORD)),
            'limits[0][volume]': '1',
            'limits[0][startpoint]': 'today',
          })
      ).status,
    ).toBe(500);

    // The console: sign-ins refused through every source, then accepted; the session's cookie
    // and CSRF token on reads and changes; a password change and a new key; a logout.
    const login = () => request(app.url).post('/api/login/');
    expect((await login().send({ email, password: CONSOLE_WRONG })).status).toBe(401);
    expect((await login().type('form').send({ email, password: CONSOLE_WRONG })).status).toBe(401);
    expect((await login().query({ email, password: CONSOLE_WRONG })).status).toBe(401);
    expect((await login().field('email', email).field('password', CONSOLE_WRONG)).status).toBe(401);
    const signedIn = await login().type('form').send({ email, password: CONSOLE_PASSWORD });
    expect(signedIn.status).toBe(200);
    const cookie = (signedIn.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const sessionToken = cookie.split('=')[1];
    const csrfToken = signedIn.body.response.csrf_token as string;
    const asSession = <T extends request.Test>(test: T): T =>
      test.set('Cookie', cookie).set('X-CSRF-Token', csrfToken);
    expect((await asSession(request(app.url).get('/api/session/'))).status).toBe(200);
    // A client that misplaces the token in the query string.
    expect(
      (await asSession(request(app.url).get('/api/session/')).query({ csrf_token: csrfToken }))
        .status,
    ).toBe(200);
    // Phones are listed with their limits, whose table is gone: the read is another listing's.
    expect((await asSession(request(app.url).get('/api/list/group/'))).status).toBe(200);
    expect(
      (await asSession(request(app.url).post('/api/contact/')).send({ name: 'C', number: NUMBER }))
        .status,
    ).toBe(201);
    expect(
      (
        await asSession(request(app.url).post('/api/me/password/')).query({
          current_password: CONSOLE_WRONG,
          new_password: CONSOLE_NEW_PASSWORD,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await asSession(request(app.url).post('/api/me/password/'))
          .type('form')
          .send({ current_password: CONSOLE_PASSWORD, new_password: CONSOLE_NEW_PASSWORD })
      ).status,
    ).toBe(200);
    expect(
      (await asSession(request(app.url).post('/api/me/api-key/')).send({ password: CONSOLE_WRONG }))
        .status,
    ).toBe(400);
    const newKey = await asSession(request(app.url).post('/api/me/api-key/')).send({
      password: CONSOLE_NEW_PASSWORD,
    });
    expect(newKey.status).toBe(200);
    const renewedKey = newKey.body.response.api_key as string;
    expect((await request(app.url).get('/api/me/').query({ api_key: renewedKey })).status).toBe(
      200,
    );
    expect((await asSession(request(app.url).post('/api/logout/'))).status).toBe(200);
    expect((await asSession(request(app.url).get('/api/session/'))).status).toBe(401);

    await app.stop();
    output = app.output();

    // The capture holds the request lines, with the secrets masked.
    expect(output).toContain('"url":"/api/phone/?');
    expect(output).toContain('[Redacted]');
    expect(output).toMatch(/"level":50.*phone_limit/);
    const secrets = [
      apiKey,
      FOREIGN_KEY,
      KANNEL_PASSWORD,
      KANNEL_WRONG,
      KANNEL_JSON_WRONG,
      KANNEL_NEW_PASSWORD,
      TWILIO_TOKEN,
      TWILIO_WRONG,
      FakeOvh.APP_SECRET,
      FakeOvh.CONSUMER_KEY,
      OVH_WRONG_CONSUMER,
      SMPP_PASSWORD,
      GAMMU_PIN,
      GENERIC_SECRET,
      NESTED_SECRET,
      FAILING_PASSWORD,
      WEBHOOK_SECRET,
      STANDARD_SECRET,
      UPDATED_SECRET,
      callbackToken,
      CONSOLE_PASSWORD,
      CONSOLE_WRONG,
      CONSOLE_NEW_PASSWORD,
      sessionToken,
      csrfToken,
      renewedKey,
    ];
    const lines = output.split('\n');
    const leaks = secrets.flatMap((secret) =>
      lines
        .filter((line) => encodings(secret).some((form) => line.includes(form)))
        .map((line) => ({ secret, line })),
    );
    expect(leaks).toEqual([]);
  }, 120_000);
});
