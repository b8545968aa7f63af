import request from 'supertest';
import { DataSource } from 'typeorm';
import { Setting } from '../../src/users/entities/setting.entity';
import { DEFAULT_SETTINGS } from '../../src/users/settings';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makePhoneLimit, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import {
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  SUSPENDED_USER,
  INVALID,
  ENVELOPE_KEYS,
  expectSuccess,
  expectError,
} from '../support/envelope';

/*
 * Settings and the account through the API (docs/api.md#get_setting, #post_setting, #get_me)
 * over real HTTP on every engine, and settings changed here taking effect on the next request
 * and the next dispatch (docs/dispatch.md) with the inline worker and the `test` adapter.
 */

const NAMES = Object.keys(DEFAULT_SETTINGS).join(', ');

interface SendedEntry {
  id: number;
  destination: string;
  text: string;
  status: string;
  error: string | null;
}

describeEachDatabase('settings and the account', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      TZ: 'Europe/Paris',
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const storedSettings = async (id_user: number) =>
    Object.fromEntries(
      (await ds.getRepository(Setting).findBy({ id_user })).map(({ name, value }) => [name, value]),
    );
  const getSettings = (apiKey: string) => api(t, apiKey, 'query').get('/api/setting/');
  const postSettings = (apiKey: string, body: Record<string, unknown> | string) =>
    api(t, apiKey).form('/api/setting/').send(body);
  const postJson = (apiKey: string, body: string) => api(t, apiKey).json('/api/setting/', body);

  describe('get_setting (GET /api/setting/)', () => {
    it('answers 401 INVALID_CREDENTIALS in the envelope without an API key', async () => {
      expectError(
        await request(t.url).get('/api/setting/'),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
    });

    it('lists every setting of the caller as strings, defaults included for those not stored', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { mms: '0' } });
      await ds.getRepository(Setting).delete({ id_user: user.id, name: 'webhook' });

      expectSuccess(await getSettings(apiKey), 200, { ...DEFAULT_SETTINGS, mms: '0' });
    });

    it("shows the caller's settings, never another user's", async () => {
      const { apiKey } = await makeUser(ds);
      await makeUser(ds, { settings: { templating: '0', default_phone_country: 'fr' } });

      expectSuccess(await getSettings(apiKey), 200, DEFAULT_SETTINGS);
    });
  });

  describe('get_setting_definitions (GET /api/setting/definitions/)', () => {
    interface Definition {
      name: string;
      label: string;
      description: string;
      group: string;
      type: 'flag' | 'choice' | 'number' | 'text';
      default: string;
      allowed: string;
      minimum: number | null;
      maximum: number | null;
      decimals: number | null;
      min_length: number | null;
      max_length: number | null;
      choices: Array<{ value: string; label: string }> | null;
    }
    const getDefinitions = async (apiKey: string): Promise<Definition[]> => {
      const response = await api(t, apiKey, 'query').get('/api/setting/definitions/');
      expect(response.status).toBe(200);
      return response.body.response as Definition[];
    };

    it('answers 401 INVALID_CREDENTIALS in the envelope without an API key', async () => {
      expectError(
        await request(t.url).get('/api/setting/definitions/'),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
    });

    it('describes every setting get_setting lists, with its default, meaning and allowed values', async () => {
      const { apiKey } = await makeUser(ds);
      const definitions = await getDefinitions(apiKey);

      expect(Object.fromEntries(definitions.map((d) => [d.name, d.default]))).toEqual(
        DEFAULT_SETTINGS,
      );
      for (const definition of definitions) {
        expect(definition.label).not.toBe('');
        expect(definition.description).not.toBe('');
        expect(definition.group).not.toBe('');
      }
      expect(definitions.find((d) => d.name === 'mms')).toMatchObject({
        type: 'flag',
        allowed: '0 or 1',
        choices: null,
      });
      expect(definitions.find((d) => d.name === 'phone_reliability_failed_rate_limit')).toEqual(
        expect.objectContaining({ type: 'number', minimum: 0, maximum: 100, decimals: 2 }),
      );
      expect(definitions.find((d) => d.name === 'smsstop_response')).toEqual(
        expect.objectContaining({ type: 'text', min_length: 1, max_length: 1000 }),
      );
      const country = definitions.find((d) => d.name === 'default_phone_country')!;
      expect(country.type).toBe('choice');
      expect(country.choices).toEqual(
        expect.arrayContaining([
          { value: '', label: expect.any(String) },
          { value: 'fr', label: 'France (fr)' },
        ]),
      );
    });

    it('agrees with post_setting: the bounds and choices it gives are taken, values past them refused in its words', async () => {
      const { apiKey } = await makeUser(ds);
      for (const definition of await getDefinitions(apiKey)) {
        const { name } = definition;
        const taken: string[] = [];
        const refused: string[] = [];
        switch (definition.type) {
          case 'flag':
            taken.push('0', '1');
            refused.push('2');
            break;
          case 'choice':
            taken.push(...definition.choices!.slice(0, 3).map((choice) => choice.value));
            refused.push('zz');
            break;
          case 'number': {
            const step = 10 ** -definition.decimals!;
            taken.push(String(definition.minimum), String(definition.maximum));
            refused.push(
              String(definition.maximum! + step),
              (definition.minimum! + step / 10).toFixed(definition.decimals! + 1),
            );
            break;
          }
          case 'text':
            // A window has a syntax of its own, which `allowed` says.
            taken.push(
              name === 'send_window'
                ? 'mon-fri 08:00-20:00, sat 10:00-18:00'
                : 'x'.repeat(definition.max_length!),
            );
            refused.push('x'.repeat(definition.max_length! + 1), ' ');
            break;
        }
        for (const value of taken) {
          // A grace period must stay less than its period: each is given with the widest other.
          const body = name.endsWith('_grace_period')
            ? { [name]: value, [name.replace(/_grace_period$/, '_period')]: '525600' }
            : name.endsWith('_period')
              ? { [name]: value, [name.replace(/_period$/, '_grace_period')]: '0' }
              : { [name]: value };
          expect((await postSettings(apiKey, body)).status).toBe(200);
        }
        for (const value of refused) {
          expectError(
            await postSettings(apiKey, { [name]: value }),
            400,
            INVALID_PARAMETER,
            `${INVALID}${name} must be ${definition.allowed}.`,
          );
        }
      }
    });
  });

  describe('post_setting (POST /api/setting/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);

      const response = await request(t.url).post('/api/setting/').type('form').send({ mms: '0' });

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
    });

    it('changes several settings at once and answers all of them after the change', async () => {
      const { user, apiKey } = await makeUser(ds);
      const changed = {
        ...DEFAULT_SETTINGS,
        mms: '0',
        phone_priority: '1',
        default_phone_country: 'gb',
        smsstop_response: 'Unsubscribed.',
      };

      const response = await postSettings(apiKey, {
        mms: '0',
        phone_priority: '1',
        default_phone_country: 'GB',
        smsstop_response: 'Unsubscribed.',
      });

      expectSuccess(response, 200, changed);
      expect(await storedSettings(user.id)).toEqual(changed);
      expectSuccess(await getSettings(apiKey), 200, changed);
    });

    it('takes a JSON body, its numbers as their text, and ignores the api_key field of a form', async () => {
      const { user, apiKey } = await makeUser(ds);

      const json = await postJson(apiKey, '{"templating": 0, "webhook": "0"}');
      const form = await request(t.url)
        .post('/api/setting/')
        .type('form')
        .send({ api_key: apiKey, smsstop: '0' });

      expectSuccess(json, 200, { ...DEFAULT_SETTINGS, templating: '0', webhook: '0' });
      expectSuccess(form, 200, {
        ...DEFAULT_SETTINGS,
        templating: '0',
        webhook: '0',
        smsstop: '0',
      });
      expect((await storedSettings(user.id)).smsstop).toBe('0');
    });

    it('creates a setting the caller has no row for, and empties default_phone_country', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      await ds.getRepository(Setting).delete({ id_user: user.id, name: 'force_gsm_alphabet' });

      const response = await postSettings(apiKey, 'force_gsm_alphabet=1&default_phone_country=');

      expectSuccess(response, 200, { ...DEFAULT_SETTINGS, force_gsm_alphabet: '1' });
      expect(await storedSettings(user.id)).toEqual({
        ...DEFAULT_SETTINGS,
        force_gsm_alphabet: '1',
      });
    });

    it('ends concurrent changes of a setting the caller has no row for as one row, never a 500', async () => {
      const { user, apiKey } = await makeUser(ds);
      await ds.getRepository(Setting).delete({ id_user: user.id, name: 'webhook' });

      const responses = await Promise.all(
        ['0', '1', '0', '1', '0', '1'].map((webhook) => postSettings(apiKey, { webhook })),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(6).fill(200));
      expect(await ds.getRepository(Setting).countBy({ id_user: user.id, name: 'webhook' })).toBe(
        1,
      );
    });

    it("changes only the caller's settings", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);

      await postSettings(apiKey, { templating: '0' });

      expect(await storedSettings(other.user.id)).toEqual(DEFAULT_SETTINGS);
    });

    it('refuses a request without any setting with MISSING_PARAMETER', async () => {
      const { user, apiKey } = await makeUser(ds);

      expectError(
        await postSettings(apiKey, {}),
        400,
        MISSING_PARAMETER,
        'One require parameter is missing : give at least one setting to change, as name=value.',
      );
      expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
    });

    const FLAG = (name: string) => `${INVALID}${name} must be 0 or 1.`;
    const COUNTRY =
      `${INVALID}default_phone_country must be an ISO 3166 alpha-2 country code (such as fr), ` +
      'or empty for none.';
    const RESPONSE = `${INVALID}smsstop_response must be 1 to 1000 characters, not only blanks.`;
    it.each<[string, string, string]>([
      [
        'an unknown setting',
        'colour=blue',
        `${INVALID}"colour" is not a setting name: one of ${NAMES}.`,
      ],
      [
        'a name of Object.prototype',
        'toString=1',
        `${INVALID}"toString" is not a setting name: one of ${NAMES}.`,
      ],
      ['a flag of 2', 'mms=2', FLAG('mms')],
      ['a flag of true', 'phone_limit=true', FLAG('phone_limit')],
      ['an empty flag', 'templating=', FLAG('templating')],
      ['a negative flag', 'smsstop=-1', FLAG('smsstop')],
      ['a float flag', 'webhook=1.0', FLAG('webhook')],
      ['a list flag', 'smsstop_respond[]=1', `${INVALID}smsstop_respond must be a text.`],
      ['an object flag', 'force_gsm_alphabet[a]=1', `${INVALID}force_gsm_alphabet must be a text.`],
      ['a country name', 'default_phone_country=france', COUNTRY],
      ['a code that is no country', 'default_phone_country=zz', COUNTRY],
      ['a padded code', 'default_phone_country=%20fr', COUNTRY],
      ['a 10k-character country', `default_phone_country=${'f'.repeat(10_000)}`, COUNTRY],
      ['an empty response', 'smsstop_response=', RESPONSE],
      ['a blank response', 'smsstop_response=%20%20', RESPONSE],
      ['a 1001-character response', `smsstop_response=${'x'.repeat(1001)}`, RESPONSE],
      ['a 10k-character response', `smsstop_response=${'x'.repeat(10_000)}`, RESPONSE],
      ['one bad field among good ones', 'mms=0&templating=0&phone_limit=yes', FLAG('phone_limit')],
    ])(
      'refuses %s with INVALID_PARAMETER naming it, changing nothing',
      async (_what, body, message) => {
        const { user, apiKey } = await makeUser(ds);

        expectError(await postSettings(apiKey, body), 400, INVALID_PARAMETER, message);
        expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
      },
    );

    it('changes the phone reliability settings, their numbers stored without leading zeros', async () => {
      const { user, apiKey } = await makeUser(ds);
      const changed = {
        ...DEFAULT_SETTINGS,
        phone_reliability_unknown: '1',
        phone_reliability_unknown_rate_limit: '12.5',
        phone_reliability_unknown_volume: '10',
        phone_reliability_unknown_period: '30',
        phone_reliability_unknown_grace_period: '0',
        phone_reliability_unknown_webhook: '0',
        phone_reliability_unknown_auto_disable: '1',
      };

      const response = await postSettings(apiKey, {
        phone_reliability_unknown: '1',
        phone_reliability_unknown_rate_limit: '12.5',
        phone_reliability_unknown_volume: '010',
        phone_reliability_unknown_period: '30',
        phone_reliability_unknown_grace_period: '0',
        phone_reliability_unknown_webhook: '0',
        phone_reliability_unknown_auto_disable: '1',
      });

      expectSuccess(response, 200, changed);
      expect(await storedSettings(user.id)).toEqual(changed);
    });

    it('takes a reliability period and grace period changed together, the period first shorter than the stored grace', async () => {
      const { user, apiKey } = await makeUser(ds, {
        settings: { phone_reliability_failed_grace_period: '60' },
      });

      const response = await postJson(
        apiKey,
        '{"phone_reliability_failed_period": 30, "phone_reliability_failed_grace_period": 5}',
      );

      expectSuccess(response, 200, {
        ...DEFAULT_SETTINGS,
        phone_reliability_failed_period: '30',
        phone_reliability_failed_grace_period: '5',
      });
      expect((await storedSettings(user.id)).phone_reliability_failed_period).toBe('30');
    });

    it.each<[string, string, string]>([
      [
        'a rate over 100 %',
        'phone_reliability_failed_rate_limit=150',
        `${INVALID}phone_reliability_failed_rate_limit must be a percentage from 0 to 100 (at ` +
          'most two decimals, such as 10 or 12.5): the share of the messages sent that raises an alert.',
      ],
      [
        'a rate with a percent sign',
        'phone_reliability_unknown_rate_limit=10%25',
        `${INVALID}phone_reliability_unknown_rate_limit must be a percentage from 0 to 100 (at ` +
          'most two decimals, such as 10 or 12.5): the share of the messages sent that raises an alert.',
      ],
      [
        'a volume of 0',
        'phone_reliability_failed_volume=0',
        `${INVALID}phone_reliability_failed_volume must be a whole number from 1 to 1000000: the ` +
          'fewest messages sent in the period for a rate to be judged.',
      ],
      [
        'a period of 0',
        'phone_reliability_unknown_period=0',
        `${INVALID}phone_reliability_unknown_period must be a whole number of minutes from 1 to ` +
          '525600 (a year).',
      ],
      [
        'a negative grace period',
        'phone_reliability_failed_grace_period=-1',
        `${INVALID}phone_reliability_failed_grace_period must be a whole number of minutes from 0 ` +
          'to 525599, less than the period.',
      ],
      [
        'a grace period as long as the stored period',
        'phone_reliability_failed_grace_period=120',
        `${INVALID}phone_reliability_failed_grace_period (120) must be less than ` +
          'phone_reliability_failed_period (120): the check looks at the messages sent between ' +
          'the period and the grace period ago.',
      ],
      [
        'a period shorter than the stored grace period',
        'mms=0&phone_reliability_unknown_period=1&phone_reliability_unknown_grace_period=1',
        `${INVALID}phone_reliability_unknown_grace_period (1) must be less than ` +
          'phone_reliability_unknown_period (1): the check looks at the messages sent between ' +
          'the period and the grace period ago.',
      ],
      [
        'a flag of 2',
        'phone_reliability_failed_auto_disable=2',
        FLAG('phone_reliability_failed_auto_disable'),
      ],
      [
        'an e-mail variant, which smsgw does not serve',
        'phone_reliability_failed_email=1',
        `${INVALID}"phone_reliability_failed_email" is not a setting name: one of ${NAMES}.`,
      ],
    ])(
      'refuses %s with INVALID_PARAMETER naming it, changing nothing',
      async (_what, body, message) => {
        const { user, apiKey } = await makeUser(ds);

        expectError(await postSettings(apiKey, body), 400, INVALID_PARAMETER, message);
        expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
      },
    );

    it.each([
      ['a JSON null', '{"mms": null}', `${INVALID}mms must be a text.`],
      ['a JSON boolean', '{"mms": true}', `${INVALID}mms must be a text.`],
      ['a JSON float', '{"mms": 0.5}', `${INVALID}mms must be 0 or 1.`],
      ['a huge JSON number', '{"mms": 1e400}', `${INVALID}mms must be a text.`],
      ['a JSON array body', '["mms"]', `${INVALID}the JSON body must be an object of parameters.`],
      [
        'a JSON __proto__ key',
        '{"__proto__": {"mms": "0"}}',
        `${INVALID}"__proto__" is not a setting name: one of ${NAMES}.`,
      ],
    ])(
      'refuses %s with INVALID_PARAMETER naming it, changing nothing',
      async (_what, body, message) => {
        const { user, apiKey } = await makeUser(ds);

        expectError(await postJson(apiKey, body), 400, INVALID_PARAMETER, message);
        expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
      },
    );

    it('refuses a body that is not JSON with INVALID_PARAMETER, changing nothing', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await postJson(apiKey, '{"mms": "0"');

      expect(response.status).toBe(400);
      expect(response.body.error).toBe(INVALID_PARAMETER);
      expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
      expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
    });

    it('accepts a 1000-character response counted in characters, not bytes', async () => {
      const { user, apiKey } = await makeUser(ds);
      const text = 'é'.repeat(1000);

      expectSuccess(await postSettings(apiKey, { smsstop_response: text }), 200, {
        ...DEFAULT_SETTINGS,
        smsstop_response: text,
      });
      expect((await storedSettings(user.id)).smsstop_response).toBe(text);
    });
  });

  describe('get_me (GET /api/me/)', () => {
    it('answers 401 INVALID_CREDENTIALS in the envelope without an API key, or with a wrong one', async () => {
      expectError(
        await request(t.url).get('/api/me/'),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
      expectError(
        await request(t.url)
          .get('/api/me/')
          .query({ api_key: '0'.repeat(32) }),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
    });

    it("answers the caller's account, admin as a boolean and created_at in the service time zone", async () => {
      const { user, apiKey } = await makeUser(ds, { admin: 1 });
      await makeUser(ds);

      expectSuccess(await api(t, apiKey).get('/api/me/'), 200, {
        id: user.id,
        email: user.email,
        status: 'active',
        admin: true,
        created_at: '2024-01-02 04:04:05',
        quota: null,
      });
    });

    it('answers a user who is not an admin with admin false', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey, 'query').get('/api/me');

      expect(response.body.response.admin).toBe(false);
    });

    it('answers a suspended user with 403 SUSPENDED_USER, as every operation does', async () => {
      const { user, apiKey } = await makeUser(ds, { status: 'suspended' });

      const me = await api(t, apiKey, 'query').get('/api/me/');
      const settings = await getSettings(apiKey);
      const change = await postSettings(apiKey, { mms: '0' });

      for (const response of [me, settings, change]) {
        expectError(response, 403, SUSPENDED_USER, 'This user account is currently suspended.');
      }
      expect(await storedSettings(user.id)).toEqual(DEFAULT_SETTINGS);
    });
  });

  describe('settings changed here take effect on the next request and the next dispatch', () => {
    const schedule = async (apiKey: string, body: Record<string, unknown>) => {
      const response = await api(t, apiKey).post('/api/scheduled/').send(body);
      expect(response.status).toBe(201);
    };
    const dispatched = async (apiKey: string, count: number): Promise<SendedEntry[]> => {
      let entries: SendedEntry[] = [];
      await waitFor(async () => {
        const response = await api(t, apiKey, 'query').get('/api/list/sended/');
        entries = response.body.response;
        return entries.length >= count;
      }, `${count} sent entries`);
      return entries.sort((a, b) => a.id - b.id);
    };
    const change = async (apiKey: string, body: Record<string, string>) => {
      expect((await postSettings(apiKey, body)).status).toBe(200);
    };

    it('templating 0 sends the next text raw', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id);
      const message = {
        text: 'Hi {{ contact.firstname }}',
        numbers: [{ number: '+33612345671', data: { firstname: 'Ada' } }],
      };

      await schedule(apiKey, message);
      await dispatched(apiKey, 1);
      await change(apiKey, { templating: '0' });
      await schedule(apiKey, message);
      const entries = await dispatched(apiKey, 2);

      expect(entries.map((entry) => entry.text)).toEqual(['Hi Ada', 'Hi {{ contact.firstname }}']);
    });

    it('smsstop 0 sends to a stopped number, and 1 skips it again', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id);
      await api(t, apiKey).form('/api/stop/').send({ number: '+33612345672' });
      const message = { text: 'News', numbers: ['+33612345672', '+33612345673'] };

      await change(apiKey, { smsstop: '0' });
      await schedule(apiKey, message);
      await dispatched(apiKey, 2);
      await change(apiKey, { smsstop: '1' });
      await schedule(apiKey, message);
      const entries = await dispatched(apiKey, 3);
      await waitFor(async () => {
        const pending = await api(t, apiKey, 'query').get('/api/list/scheduled/');
        return pending.body.response.length === 0;
      }, 'the second message dispatched');

      expect(entries.map((entry) => entry.destination).sort()).toEqual([
        '+33612345672',
        '+33612345673',
        '+33612345673',
      ]);
    });

    it('default_phone_country fr makes get_send_sms accept a French national number', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id);
      const send = () =>
        api(t, apiKey, 'query').get('/api/send-sms/', { to: '0612345674', text: 'Bonjour' });

      const before = await send();
      await change(apiKey, { default_phone_country: 'fr' });
      const after = await send();
      const entries = await dispatched(apiKey, 1);

      expectError(
        before,
        400,
        MISSING_PARAMETER,
        'One require parameter is missing : to ("0612345674" is not a valid phone number).',
      );
      expect(after.status).toBe(200);
      expect(entries.map((entry) => [entry.destination, entry.text])).toEqual([
        ['+33612345674', 'Bonjour'],
      ]);
    });

    it('phone_limit 1 makes a spent limit count: the next message fails as docs/dispatch.md says', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      await makePhoneLimit(ds, phone.id, { volume: 1, startpoint: 'today' });

      await schedule(apiKey, { text: 'One', numbers: ['+33612345675', '+33612345676'] });
      await dispatched(apiKey, 2);
      await change(apiKey, { phone_limit: '1' });
      await schedule(apiKey, { text: 'Two', numbers: ['+33612345677'] });
      const entries = await dispatched(apiKey, 3);

      expect(entries.map((entry) => [entry.text, entry.status, entry.error])).toEqual([
        ['One', 'unknown', null],
        ['One', 'unknown', null],
        ['Two', 'failed', 'The phone has reached its sending limit.'],
      ]);
    });
  });
});
