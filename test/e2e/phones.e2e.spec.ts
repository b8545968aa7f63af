import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  Adapter,
  AdapterData,
  PhoneStatus,
  SendResult,
  field,
  secretField,
} from '../../src/adapters/adapter';
import { AdapterDescriptor } from '../../src/adapters/adapter.descriptor';
import { AdapterRegistry } from '../../src/adapters/adapter.registry';
import { nowUtc } from '../../src/common/time/datetime';
import { Outbox } from '../../src/dispatch/entities/outbox.entity';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../../src/phone-groups/entities/phone-group.entity';
import { PhoneLimit } from '../../src/phones/entities/phone-limit.entity';
import { Phone } from '../../src/phones/entities/phone.entity';
import { PhonesRepository } from '../../src/phones/phones.repository';
import { Scheduled } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { freezeDate, withQueries } from '../support/instruments';
import {
  makePhone,
  makePhoneGroup,
  makePhoneLimit,
  makeReceived,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';
import {
  CANNOT_CREATE,
  CANNOT_DELETE,
  CANNOT_UPDATE,
  INVALID,
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING,
  MISSING_PARAMETER,
  expectError,
  expectSuccess,
} from '../support/envelope';

/*
 * post_phone, post_update_phone, delete_phone, post_update_phone_status and
 * post_change_phone_status (docs/api.md, docs/api-choices.md, docs/adapters.md) over real HTTP
 * against the real app, on every database engine. Each test makes its own users.
 */

/** A provider with a required secret, a required number and an optional field. */
class ProviderAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'provider',
    alias: 'adapters\\ProviderAdapter',
    name: 'Provider',
    description: 'A provider with credentials, for these tests',
    fields: [
      field('token', 'API token of the account', true),
      field('number', 'Number to send from', true, true),
      field('callback', 'Where receipts go', false),
    ],
    hideData: true,
  };
  readonly capabilities = { flash: false, mms: false };
  readonly tested: AdapterData[] = [];

  test(data: AdapterData): Promise<string | null> {
    this.tested.push(data);
    return Promise.resolve(data.token === 'revoked' ? 'the token was revoked.' : null);
  }

  checkStatus(data: AdapterData): Promise<'available'> {
    return data.token === 'unreachable'
      ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'))
      : Promise.resolve('available');
  }

  send(): Promise<SendResult> {
    return Promise.resolve({
      outcome: 'permanent',
      reason: 'These tests send nothing.',
      cause: 'recipient',
    });
  }
}

/** A provider with a required and an optional secret: what a client never sees back. */
class VaultAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'vault',
    alias: null,
    name: 'Vault',
    description: 'A provider with secrets, for these tests',
    fields: [
      secretField('password', 'Account password', true),
      secretField('pin', 'Optional PIN', false),
      field('label', 'Optional label', false),
    ],
    hideData: false,
  };
  readonly capabilities = { flash: false, mms: false };
  readonly tested: AdapterData[] = [];

  test(data: AdapterData): Promise<null> {
    this.tested.push(data);
    return Promise.resolve(null);
  }

  checkStatus(): Promise<'available'> {
    return Promise.resolve('available');
  }

  send(): Promise<SendResult> {
    return Promise.resolve({
      outcome: 'permanent',
      reason: 'These tests send nothing.',
      cause: 'recipient',
    });
  }
}

describeEachDatabase('phones', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let provider: ProviderAdapter;
  let vault: VaultAdapter;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    // A provider with required and number fields, registered beside the real adapters.
    provider = new ProviderAdapter();
    vault = new VaultAdapter();
    const registry = t.app.get(AdapterRegistry);
    const find = registry.find.bind(registry);
    jest
      .spyOn(registry, 'find')
      .mockImplementation((name) =>
        name === 'provider' || name === 'adapters\\ProviderAdapter'
          ? provider
          : name === 'vault'
            ? vault
            : find(name),
      );
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  const phoneRow = (id: number) => ds.getRepository(Phone).findOneBy({ id });
  const limitRows = async (id_phone: number) =>
    (await ds.getRepository(PhoneLimit).find({ where: { id_phone }, order: { id: 'ASC' } })).map(
      ({ volume, startpoint }) => ({ volume, startpoint }),
    );
  const phonesNamed = (id_user: number, name: string) =>
    ds.getRepository(Phone).countBy({ id_user, name });

  /** Sends bytes as they are, the way curl does. */
  const rawPost = (path: string, apiKey: string, contentType: string, body: string) =>
    fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': contentType, 'X-Api-Key': apiKey },
      body,
    });

  describe('post_phone (POST /api/phone/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and creates nothing', async () => {
      const { user } = await makeUser(ds);

      const response = await request(t.url)
        .post('/api/phone/')
        .type('form')
        .send({ name: 'no key', adapter: 'test' });

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect(await phonesNamed(user.id, 'no key')).toBe(0);
    });

    it("creates a phone from RaspiSMS's curl -d form, byte for byte, with HTTP 201 and its id", async () => {
      const { user, apiKey } = await makeUser(ds);
      const body =
        'name=Phone 1&adapter=adapters\\TestAdapter&limits[0][volume]=100' +
        '&limits[0][startpoint]=this week midnight';

      const response = await rawPost(
        '/api/phone/',
        apiKey,
        'application/x-www-form-urlencoded',
        body,
      );

      expect(response.status).toBe(201);
      const json = (await response.json()) as { response: number };
      expect(json).toEqual({
        error: 0,
        message: null,
        response: expect.any(Number),
        next: null,
        prev: null,
      });
      const phone = await phoneRow(json.response);
      expect(phone).toMatchObject({
        id_user: user.id,
        name: 'Phone 1',
        adapter: 'test',
        adapter_data: '{}',
        priority: 0,
        status: 'available',
        updated_at: null,
      });
      expect(phone?.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(await limitRows(json.response)).toEqual([
        { volume: 100, startpoint: 'this week midnight' },
      ]);
    });

    it('creates a phone from curl --data-urlencode parameters', async () => {
      const { user, apiKey } = await makeUser(ds);
      const body =
        'name=Phone%201&adapter=adapters%5CTestAdapter&adapter_data[delivery]=delivered' +
        '&limits[0][volume]=100&limits[0][startpoint]=this%20week%20midnight';

      const response = await rawPost(
        `/api/phone/?api_key=${apiKey}`,
        '',
        'application/x-www-form-urlencoded',
        body,
      );

      expect(response.status).toBe(201);
      const { response: id } = (await response.json()) as { response: number };
      expect(await phoneRow(id)).toMatchObject({
        id_user: user.id,
        name: 'Phone 1',
        adapter: 'test',
        adapter_data: '{"delivery":"delivered"}',
      });
      expect(await limitRows(id)).toEqual([{ volume: 100, startpoint: 'this week midnight' }]);
    });

    it('creates a phone from a multipart body with bracket fields', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey)
        .post('/api/phone')
        .field('name', 'multipart phone')
        .field('adapter', 'test')
        .field('adapter_data[phone_status]', 'no_credit')
        .field('priority', '3')
        .field('limits[0][volume]', '7')
        .field('limits[0][startpoint]', 'today');

      expectSuccess(response, 201, expect.any(Number));
      const id = response.body.response as number;
      expect(await phoneRow(id)).toMatchObject({
        name: 'multipart phone',
        adapter_data: '{"phone_status":"no_credit"}',
        priority: 3,
      });
      expect(await limitRows(id)).toEqual([{ volume: 7, startpoint: 'today' }]);
    });

    it('creates a phone from a JSON body, adapter_data as an object', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).json('/api/phone/', {
        name: 'json phone',
        adapter: 'test',
        adapter_data: { delivery: 'failed' },
        priority: 2,
        limits: [
          { volume: 5, startpoint: '-24 hours' },
          { volume: 50, startpoint: 'this month midnight' },
        ],
      });

      expectSuccess(response, 201, expect.any(Number));
      const id = response.body.response as number;
      expect(await phoneRow(id)).toMatchObject({
        adapter_data: '{"delivery":"failed"}',
        priority: 2,
      });
      expect(await limitRows(id)).toEqual([
        { volume: 5, startpoint: '-24 hours' },
        { volume: 50, startpoint: 'this month midnight' },
      ]);
    });

    it('accepts adapter_data as a JSON object in a string', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).form('/api/phone/').send({
        name: 'json string data',
        adapter: 'test',
        adapter_data: '{"delivery":"delivered"}',
      });

      expectSuccess(response, 201, expect.any(Number));
      expect((await phoneRow(response.body.response as number))?.adapter_data).toBe(
        '{"delivery":"delivered"}',
      );
    });

    it('refuses adapter_data that is not an object with INVALID_PARAMETER', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).form('/api/phone/').send({
        name: 'bad data',
        adapter: 'test',
        adapter_data: 'delivery=failed',
      });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}adapter_data must be an object, or a JSON object in a string.`,
      );
      expect(await phonesNamed(user.id, 'bad data')).toBe(0);
    });

    describe('rule 1: name and adapter are required', () => {
      it('refuses a missing name with MISSING_PARAMETER naming name', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send({ adapter: 'test' });

        expectError(
          response,
          400,
          MISSING_PARAMETER,
          `${MISSING}name is required: the phone's name, unique among your phones.`,
        );
      });
    });

    describe('rule 2: the name is unique among the caller’s phones', () => {
      it('refuses a phone name already used by the caller with INVALID_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makePhone(ds, user.id, { name: 'Taken' });

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'Taken',
          adapter: 'test',
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}name "Taken" is already used by another of your phones.`,
        );
        expect(await phonesNamed(user.id, 'Taken')).toBe(1);
      });

      it("accepts a name another user's phone has", async () => {
        const other = await makeUser(ds);
        await makePhone(ds, other.user.id, { name: 'Shared name' });
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'Shared name',
          adapter: 'test',
        });

        expectSuccess(response, 201, expect.any(Number));
      });

      it('checks the name before the adapter', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makePhone(ds, user.id, { name: 'Taken' });

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'Taken',
          adapter: 'nope',
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : name "Taken"/,
        );
      });

      it('rule 8: a name taken by a concurrent request between check and insert is still INVALID_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makePhone(ds, user.id, { name: 'Raced' });
        // The check misses the other phone, as when it is inserted just after the check.
        jest.spyOn(t.app.get(PhonesRepository), 'isNameTaken').mockResolvedValueOnce(false);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send({ name: 'Raced', adapter: 'test' });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}name "Raced" is already used by another of your phones.`,
        );
        expect(await phonesNamed(user.id, 'Raced')).toBe(1);
      });
    });

    describe('rule 3: limits are cleaned', () => {
      it('drops silently elements that are not objects, lack a field or have an invalid startpoint', async () => {
        const { apiKey } = await makeUser(ds);
        const body = [
          'name=cleaned',
          'adapter=test',
          'limits[0]=abc',
          'limits[1][volume]=5',
          'limits[2][startpoint]=today',
          'limits[3][volume]=3&limits[3][startpoint]=garbage',
          'limits[4][volume]=abc&limits[4][startpoint]=today',
          'limits[5][volume]=-2&limits[5][startpoint]=-24 hours',
          'limits[6][volume]=12.9&limits[6][startpoint]=this week midnight -1 week',
          'limits[7][volume]=0&limits[7][startpoint]=today',
        ].join('&');

        const response = await api(t, apiKey).form('/api/phone/').send(body);

        expectSuccess(response, 201, expect.any(Number));
        expect(await limitRows(response.body.response as number)).toEqual([
          { volume: 1, startpoint: 'today' },
          { volume: 1, startpoint: '-24 hours' },
          { volume: 12, startpoint: 'this week midnight -1 week' },
        ]);
      });

      it('creates a phone without limits when every element is dropped', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send('name=no limits&adapter=test&limits[0][volume]=4&limits[0][startpoint]=whenever');

        expectSuccess(response, 201, expect.any(Number));
        expect(await limitRows(response.body.response as number)).toEqual([]);
      });

      it('refuses more than 100 limits with INVALID_PARAMETER, before looking up the adapter', async () => {
        const { apiKey } = await makeUser(ds);
        const limits = Array.from({ length: 101 }, () => ({ volume: 1, startpoint: 'today' }));

        const response = await api(t, apiKey).json('/api/phone/', {
          name: 'many limits',
          adapter: 'nope',
          limits,
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}limits : a phone may have at most 100 limits.`,
        );
      });
    });

    describe('rule 4: the adapter must exist', () => {
      it('refuses an unknown adapter with INVALID_PARAMETER naming adapter', async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'unknown adapter',
          adapter: 'adapters\\NopeAdapter',
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : adapter "adapters\\NopeAdapter" does not exist; use one of test, /,
        );
        expect(await phonesNamed(user.id, 'unknown adapter')).toBe(0);
      });

      it('stores the adapter id when named by its RaspiSMS alias', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'by alias',
          adapter: 'adapters\\TestAdapter',
        });

        expectSuccess(response, 201, expect.any(Number));
        expect((await phoneRow(response.body.response as number))?.adapter).toBe('test');
      });
    });

    describe('rules 5 and 6: the adapter data fields', () => {
      it('refuses a missing required field with MISSING_PARAMETER naming it and its description', async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send('name=p&adapter=provider&adapter_data[number]=%2B33612345678');

        expectError(
          response,
          400,
          MISSING_PARAMETER,
          `${MISSING}adapter_data[token] (API token of the account) is required by the provider adapter.`,
        );
        expect(provider.tested).toEqual([]);
        expect(await phonesNamed(user.id, 'p')).toBe(0);
      });

      it('names every missing required field at once: a twilio phone without adapter_data', async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send('name=p&adapter=twilio');

        expectError(
          response,
          400,
          MISSING_PARAMETER,
          `${MISSING}adapter_data[account_sid] (Twilio account SID), adapter_data[auth_token] ` +
            '(Twilio auth token) and adapter_data[number] (The Twilio phone number to send from, ' +
            'international format) are required by the twilio adapter.',
        );
        expect(await phonesNamed(user.id, 'p')).toBe(0);
      });

      it("refuses a field the adapter does not have with INVALID_PARAMETER naming it and listing the adapter's fields, creating nothing", async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send('name=typo&adapter=test&adapter_data[deliver]=failed');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}adapter_data[deliver] : the test adapter has no such field; its fields are ` +
            'delivery, phone_status and refusal.',
        );
        expect(await phonesNamed(user.id, 'typo')).toBe(0);
      });

      it('refuses an unknown field before a missing one, in a JSON object too', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).json('/api/phone/', {
          name: 'p',
          adapter: 'provider',
          adapter_data: { tokn: 't', password: 'x' },
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}adapter_data[tokn], adapter_data[password] : the provider adapter has no ` +
            'such field; its fields are token, number and callback.',
        );
        expect(provider.tested).toEqual([]);
      });

      it('refuses an empty required field as missing', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send('name=p&adapter=provider&adapter_data[token]=&adapter_data[number]=%2B33612345678');

        expectError(response, 400, MISSING_PARAMETER, /adapter_data\[token\]/);
      });

      it('refuses an invalid number field with INVALID_PARAMETER naming it, before the test', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send('name=p&adapter=provider&adapter_data[token]=t&adapter_data[number]=0612345678');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}adapter_data[number] must be a valid phone number, in international format (+…).`,
        );
        expect(provider.tested).toEqual([]);
      });

      it("stores a number field in E.164, read in the user's default country", async () => {
        const { apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send(
            'name=p&adapter=provider&adapter_data[token]=t&adapter_data[number]=06 12 34 56 78',
          );

        expectSuccess(response, 201, expect.any(Number));
        expect(provider.tested).toEqual([{ token: 't', number: '+33612345678' }]);
        expect(
          JSON.parse((await phoneRow(response.body.response as number))!.adapter_data!),
        ).toEqual({ token: 't', number: '+33612345678' });
      });
    });

    describe('rule 7: the adapter test', () => {
      it('refuses data the adapter test rejects with HTTP 422 CANNOT_CREATE and its reason, creating nothing', async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form('/api/phone/')
          .send(
            'name=bogus&adapter=test&adapter_data[delivery]=bogus&limits[0][volume]=1&limits[0][startpoint]=today',
          );

        expectError(
          response,
          422,
          CANNOT_CREATE,
          'Cannot create a new entry. The test adapter refused adapter_data: delivery must be ' +
            'one of delivered, failed, unknown.',
        );
        expect(await phonesNamed(user.id, 'bogus')).toBe(0);
      });
    });

    describe('priority', () => {
      it.each([
        ['5', 5],
        ['-3', 0],
        ['', 0],
      ])('stores priority %p as %p', async (priority, stored) => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/').send({
          name: 'prioritised',
          adapter: 'test',
          priority,
        });

        expectSuccess(response, 201, expect.any(Number));
        expect((await phoneRow(response.body.response as number))?.priority).toBe(stored);
      });
    });
  });

  describe('post_update_phone (POST /api/phone/{id}/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { name: 'before' });

      const response = await request(t.url)
        .post(`/api/phone/${phone.id}/`)
        .type('form')
        .send({ name: 'after' });

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect((await phoneRow(phone.id))?.name).toBe('before');
    });

    it('updates the fields sent and answers HTTP 200 with true', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { name: 'old', priority: 1 });

      const response = await api(t, apiKey)
        .form(`/api/phone/${phone.id}/`)
        .send(
          'name=new name&adapter=adapters\\TestAdapter&adapter_data[delivery]=delivered&priority=4',
        );

      expectSuccess(response, 200, true);
      const row = await phoneRow(phone.id);
      expect(row).toMatchObject({
        name: 'new name',
        adapter: 'test',
        adapter_data: '{"delivery":"delivered"}',
        priority: 4,
        status: 'available',
        created_at: phone.created_at,
      });
      expect(row?.updated_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    });

    it('updates from a JSON body, and without the trailing slash', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await api(t, apiKey).json(`/api/phone/${phone.id}`, {
        priority: 9,
        limits: [{ volume: 2, startpoint: 'today' }],
      });

      expectSuccess(response, 200, true);
      expect((await phoneRow(phone.id))?.priority).toBe(9);
      expect(await limitRows(phone.id)).toEqual([{ volume: 2, startpoint: 'today' }]);
    });

    it('keeps every field not sent, limits included', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, {
        name: 'kept',
        adapter_data: '{"delivery":"failed"}',
        priority: 3,
        status: 'no_credit',
      });
      await makePhoneLimit(ds, phone.id, { volume: 10, startpoint: 'today' });

      const response = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({ priority: '5' });

      expectSuccess(response, 200, true);
      expect(await phoneRow(phone.id)).toMatchObject({
        name: 'kept',
        adapter: 'test',
        adapter_data: '{"delivery":"failed"}',
        priority: 5,
        status: 'no_credit',
      });
      expect(await limitRows(phone.id)).toEqual([{ volume: 10, startpoint: 'today' }]);
    });

    it('succeeds with true when nothing changes and the phone has no limits (RaspiSMS defect 7 not copied)', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { name: 'same' });

      const first = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({ name: 'same' });
      const second = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({ name: 'same' });

      expectSuccess(first, 200, true);
      expectSuccess(second, 200, true);
    });

    describe('rule 1: the phone must be the caller’s', () => {
      it('answers 404 CANNOT_UPDATE for a nonexistent phone', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).form('/api/phone/999999/').send({ name: 'x' });

        expectError(
          response,
          404,
          CANNOT_UPDATE,
          'Cannot update this entry : id : you have no phone 999999.',
        );
      });

      it("answers another user's phone exactly as a nonexistent one, and leaves it unchanged", async () => {
        const other = await makeUser(ds);
        const phone = await makePhone(ds, other.user.id, { name: 'theirs' });
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send({ name: 'mine' });

        expectError(
          response,
          404,
          CANNOT_UPDATE,
          `Cannot update this entry : id : you have no phone ${phone.id}.`,
        );
        expect((await phoneRow(phone.id))?.name).toBe('theirs');
      });

      it('checks ownership before anything else is read', async () => {
        const other = await makeUser(ds);
        const phone = await makePhone(ds, other.user.id);
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send({ priority: 'x' });

        expectError(response, 404, CANNOT_UPDATE, /^Cannot update this entry : id : /);
      });
    });

    describe('rule 2: something must be sent', () => {
      it('refuses an update sending none of name, adapter, adapter_data, priority, rate, limits with MISSING_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);

        const response = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({ other: '1' });

        expectError(
          response,
          400,
          MISSING_PARAMETER,
          `${MISSING}give at least one of name, adapter, adapter_data, priority, rate or limits to change.`,
        );
      });

      it('accepts an update sending only an empty limits, which removes every limit', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await makePhoneLimit(ds, phone.id);
        await makePhoneLimit(ds, phone.id, { startpoint: '-7 days' });

        const response = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send('limits=');

        expectSuccess(response, 200, true);
        expect(await limitRows(phone.id)).toEqual([]);
      });
    });

    describe('rule 3: the name is unique among the caller’s phones', () => {
      it('refuses a name used by another phone of the caller with INVALID_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makePhone(ds, user.id, { name: 'Other' });
        const phone = await makePhone(ds, user.id, { name: 'Mine' });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send({ name: 'Other' });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}name "Other" is already used by another of your phones.`,
        );
        expect((await phoneRow(phone.id))?.name).toBe('Mine');
      });

      it("accepts the phone's own name and another user's phone's name", async () => {
        const other = await makeUser(ds);
        await makePhone(ds, other.user.id, { name: 'Theirs' });
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { name: 'Mine' });

        const own = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({ name: 'Mine' });
        const theirs = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send({ name: 'Theirs' });

        expectSuccess(own, 200, true);
        expectSuccess(theirs, 200, true);
        expect((await phoneRow(phone.id))?.name).toBe('Theirs');
      });
    });

    describe('rule 4: limits, adapter and adapter data as post_phone', () => {
      it('replaces the limits with the cleaned ones when limits are sent', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await makePhoneLimit(ds, phone.id, { volume: 10, startpoint: 'today' });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send(
            'limits[0][volume]=abc&limits[0][startpoint]=-7 days&limits[1][volume]=5&limits[1][startpoint]=nonsense&limits[2]=x',
          );

        expectSuccess(response, 200, true);
        expect(await limitRows(phone.id)).toEqual([{ volume: 1, startpoint: '-7 days' }]);
      });

      it('refuses an unknown adapter with INVALID_PARAMETER and changes nothing', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { name: 'stays' });

        const response = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({
          name: 'renamed',
          adapter: 'nope',
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : adapter "nope" does not exist/,
        );
        expect((await phoneRow(phone.id))?.name).toBe('stays');
      });

      it('refuses a missing required field of a new adapter with MISSING_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter=provider&adapter_data[token]=t');

        expectError(
          response,
          400,
          MISSING_PARAMETER,
          `${MISSING}adapter_data[number] (Number to send from) is required by the provider adapter.`,
        );
        expect((await phoneRow(phone.id))?.adapter).toBe('test');
      });

      it('refuses an invalid number field with INVALID_PARAMETER', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, {
          adapter: 'provider',
          adapter_data: '{"token":"t","number":"+33612345678"}',
        });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter_data[number]=12');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /adapter_data\[number\] must be a valid phone number/,
        );
      });

      it("refuses a field sent that the adapter does not have, naming it and listing the adapter's fields", async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter_data[deliver]=failed');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}adapter_data[deliver] : the test adapter has no such field; its fields are ` +
            'delivery, phone_status and refusal.',
        );
        expect((await phoneRow(phone.id))?.adapter_data).toBe('{"delivery":"delivered"}');
      });

      it('checks the fields sent against the new adapter when the adapter changes', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter=benchmark&adapter_data[delivery]=failed');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}adapter_data[delivery] : the benchmark adapter takes no adapter_data.`,
        );
        expect((await phoneRow(phone.id))?.adapter).toBe('test');
      });

      it('replaces the stored adapter data with the data sent', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, {
          adapter_data: '{"delivery":"failed","phone_status":"no_credit"}',
        });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter_data[delivery]=delivered');

        expectSuccess(response, 200, true);
        expect((await phoneRow(phone.id))?.adapter_data).toBe('{"delivery":"delivered"}');
      });

      it('keeps the stored value of a required field left out when the adapter is unchanged', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, {
          adapter: 'provider',
          adapter_data: '{"token":"secret","number":"+33612345678","callback":"https://a.test/"}',
        });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter_data[callback]=https://b.test/&adapter_data[number]=%2B33687654321');

        expectSuccess(response, 200, true);
        const expected = {
          token: 'secret',
          number: '+33687654321',
          callback: 'https://b.test/',
        };
        expect(provider.tested).toEqual([expected]);
        expect(JSON.parse((await phoneRow(phone.id))!.adapter_data!)).toEqual(expected);
      });

      it('keeps the stored secrets an update leaves out, optional ones too, and drops other fields left out', async () => {
        const { apiKey } = await makeUser(ds);
        const created = await api(t, apiKey).json('/api/phone/', {
          name: 'vault',
          adapter: 'vault',
          adapter_data: { password: 'pw-1', pin: '1234', label: 'first' },
        });
        expect(created.status).toBe(201);
        const id = created.body.response as number;

        const response = await api(t, apiKey)
          .form(`/api/phone/${id}/`)
          .send('adapter_data[label]=second');

        expectSuccess(response, 200, true);
        expect(vault.tested.at(-1)).toEqual({ password: 'pw-1', pin: '1234', label: 'second' });
        const listed = await api(t, apiKey).get('/api/list/phone/');
        expect(JSON.parse(listed.body.response[0].adapter_data as string)).toEqual({
          label: 'second',
        });

        const cleared = await api(t, apiKey)
          .form(`/api/phone/${id}/`)
          .send('adapter_data[pin]=&adapter_data[password]=');

        expectSuccess(cleared, 200, true);
        expect(vault.tested.at(-1)).toEqual({ password: 'pw-1', pin: '' });
      });

      it('does not carry stored values over to a different adapter when data are sent', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send(
            'adapter=adapters\\ProviderAdapter&adapter_data[token]=t&adapter_data[number]=%2B33612345678',
          );

        expectSuccess(response, 200, true);
        expect(await phoneRow(phone.id)).toMatchObject({
          adapter: 'provider',
          adapter_data: '{"token":"t","number":"+33612345678"}',
        });
      });

      it('checks a new adapter against the stored data when no data are sent', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });

        const response = await api(t, apiKey).form(`/api/phone/${phone.id}/`).send({
          adapter: 'benchmark',
        });

        expectSuccess(response, 200, true);
        expect(await phoneRow(phone.id)).toMatchObject({
          adapter: 'benchmark',
          adapter_data: '{}',
        });
      });
    });

    describe('rule 5: the adapter test', () => {
      it('refuses data the adapter test rejects with HTTP 422 CANNOT_UPDATE, changing nothing', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { name: 'untouched' });
        await makePhoneLimit(ds, phone.id, { volume: 4, startpoint: 'today' });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('name=touched&adapter_data[delivery]=bogus&limits=');

        expectError(
          response,
          422,
          CANNOT_UPDATE,
          'Cannot update this entry : the test adapter refused adapter_data: delivery must be ' +
            'one of delivered, failed, unknown.',
        );
        expect(await phoneRow(phone.id)).toMatchObject({ name: 'untouched', adapter_data: '{}' });
        expect(await limitRows(phone.id)).toEqual([{ volume: 4, startpoint: 'today' }]);
      });

      it('tests the merged data, so a revoked stored secret fails the update', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, {
          adapter: 'provider',
          adapter_data: '{"token":"revoked","number":"+33612345678"}',
        });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send('adapter_data[callback]=https://c.test/');

        expectError(
          response,
          422,
          CANNOT_UPDATE,
          /the provider adapter refused adapter_data: the token was revoked\./,
        );
      });

      it('does not call the adapter when neither adapter nor adapter_data is sent', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, {
          adapter: 'provider',
          adapter_data: '{"token":"revoked","number":"+33612345678"}',
        });

        const response = await api(t, apiKey)
          .form(`/api/phone/${phone.id}/`)
          .send({ name: 'renamed' });

        expectSuccess(response, 200, true);
        expect(provider.tested).toEqual([]);
        expect((await phoneRow(phone.id))?.name).toBe('renamed');
      });
    });
  });

  describe('delete_phone (DELETE /api/phone/{id}/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and deletes nothing', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await request(t.url).delete(`/api/phone/${phone.id}/`);

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect(await phoneRow(phone.id)).not.toBeNull();
    });

    it('deletes the phone, its limits and group memberships, and detaches its messages', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const kept = await makePhone(ds, user.id);
      await makePhoneLimit(ds, phone.id);
      await makePhoneLimit(ds, kept.id);
      const group = await makePhoneGroup(ds, user.id, [phone.id, kept.id]);
      const sended = await makeSended(ds, user.id, { id_phone: phone.id });
      const received = await makeReceived(ds, user.id, { id_phone: phone.id });
      const scheduled = await makeScheduled(ds, user.id, { id_phone: phone.id });

      const response = await api(t, apiKey).delete(`/api/phone/${phone.id}/`);

      expectSuccess(response, 200, true);
      expect(await phoneRow(phone.id)).toBeNull();
      expect(await ds.getRepository(PhoneLimit).countBy({ id_phone: phone.id })).toBe(0);
      expect(await ds.getRepository(PhoneLimit).countBy({ id_phone: kept.id })).toBe(1);
      const members = await ds.getRepository(PhoneGroupPhone).findBy({ id_phone_group: group.id });
      expect(members.map((member) => member.id_phone)).toEqual([kept.id]);
      expect(await ds.getRepository(PhoneGroup).countBy({ id: group.id })).toBe(1);
      expect((await ds.getRepository(Sended).findOneBy({ id: sended.id }))?.id_phone).toBeNull();
      expect(
        (await ds.getRepository(Received).findOneBy({ id: received.id }))?.id_phone,
      ).toBeNull();
      expect(
        (await ds.getRepository(Scheduled).findOneBy({ id: scheduled.id }))?.id_phone,
      ).toBeNull();
    });

    it('answers 404 CANNOT_DELETE for a nonexistent phone, and for a phone already deleted', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const del = (id: number) => api(t, apiKey).delete(`/api/phone/${id}`);

      expectSuccess(await del(phone.id), 200, true);
      expectError(
        await del(phone.id),
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no phone ${phone.id}.`,
      );
      expectError(
        await del(999999),
        404,
        CANNOT_DELETE,
        'Cannot delete this entry. id : you have no phone 999999.',
      );
    });

    it("answers another user's phone exactly as a nonexistent one, and keeps it", async () => {
      const other = await makeUser(ds);
      const phone = await makePhone(ds, other.user.id);
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).delete(`/api/phone/${phone.id}/`);

      expectError(
        response,
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no phone ${phone.id}.`,
      );
      expect(await phoneRow(phone.id)).not.toBeNull();
    });
  });

  describe('post_update_phone_status (POST /api/phone/{id}/status/)', () => {
    const check = (id: number, apiKey: string) => api(t, apiKey).post(`/api/phone/${id}/status/`);

    it('answers 401 INVALID_CREDENTIALS without an API key', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { status: 'unavailable' });

      const response = await request(t.url).post(`/api/phone/${phone.id}/status/`);

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect((await phoneRow(phone.id))?.status).toBe('unavailable');
    });

    it('answers 404 CANNOT_UPDATE for a nonexistent phone and, identically, for another user’s', async () => {
      const other = await makeUser(ds);
      const theirs = await makePhone(ds, other.user.id, { status: 'unavailable' });
      const { apiKey } = await makeUser(ds);

      expectError(
        await check(999999, apiKey),
        404,
        CANNOT_UPDATE,
        'Cannot update this entry : id : you have no phone 999999.',
      );
      expectError(
        await check(theirs.id, apiKey),
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no phone ${theirs.id}.`,
      );
      expect((await phoneRow(theirs.id))?.status).toBe('unavailable');
    });

    it('refuses a disabled phone with HTTP 422 CANNOT_UPDATE, leaving it disabled', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { status: 'disabled' });

      const response = await check(phone.id, apiKey);

      expectError(
        response,
        422,
        CANNOT_UPDATE,
        `Cannot update this entry : the phone was disabled manually; re-enable it with POST /api/phone/${phone.id}/status/force/ and status=available.`,
      );
      expect((await phoneRow(phone.id))?.status).toBe('disabled');
    });

    it.each<[string, PhoneStatus]>([
      ['{}', 'available'],
      ['{"phone_status":"no_credit"}', 'no_credit'],
      ['{"phone_status":"unavailable"}', 'unavailable'],
    ])(
      'stores and answers the status the adapter reports for data %s',
      async (adapter_data, status) => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id, { adapter_data, status: 'limit_reached' });

        const response = await check(phone.id, apiKey);

        expectSuccess(response, 200, status);
        expect(await phoneRow(phone.id)).toMatchObject({ status, updated_at: expect.any(String) });
      },
    );

    it('stores unavailable when the provider cannot be asked', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, {
        adapter: 'provider',
        adapter_data: '{"token":"unreachable","number":"+33612345678"}',
      });

      expectSuccess(await check(phone.id, apiKey), 200, 'unavailable');
      expect((await phoneRow(phone.id))?.status).toBe('unavailable');
    });

    it('stores unavailable for a phone whose adapter is no longer known', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { adapter: 'retired' });

      expectSuccess(await check(phone.id, apiKey), 200, 'unavailable');
    });

    describe('limits (setting phone_limit on), at Thursday 2022-08-04 14:30 UTC', () => {
      const NOW = '2022-08-04T14:30:00Z';

      async function limitedPhone(
        limits: Array<[number, string]>,
        settings: Record<string, string> = { phone_limit: '1' },
      ) {
        const { user, apiKey } = await makeUser(ds, { settings });
        const phone = await makePhone(ds, user.id, {
          adapter_data: '{"phone_status":"no_credit"}',
        });
        for (const [volume, startpoint] of limits) {
          await makePhoneLimit(ds, phone.id, { volume, startpoint });
        }
        const sent = (...ats: string[]) =>
          Promise.all(ats.map((at) => makeSended(ds, user.id, { id_phone: phone.id, at })));
        return { user, apiKey, phone, sent };
      }

      it('answers the adapter status while every limit has volume left', async () => {
        const { apiKey, phone, sent } = await limitedPhone([
          [3, 'today'],
          [10, 'this week midnight'],
        ]);
        // Today: 1 of 3. This week: 3 of 10. Before Monday: not counted.
        await sent(
          '2022-08-04 10:00:00',
          '2022-08-02 09:00:00',
          '2022-08-03 23:59:59',
          '2022-07-31 23:59:59',
        );
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'no_credit');
      });

      it('answers limit_reached when the smallest remaining volume is below 1, counting from the startpoint inclusive', async () => {
        const { apiKey, phone, sent } = await limitedPhone([
          [3, 'today'],
          [10, 'this week midnight'],
        ]);
        await sent('2022-08-04 00:00:00', '2022-08-04 10:00:00', '2022-08-04 14:30:00');
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'limit_reached');
        expect((await phoneRow(phone.id))?.status).toBe('limit_reached');
      });

      it('lets the smallest remaining volume win, whichever limit it is', async () => {
        const { apiKey, phone, sent } = await limitedPhone([
          [100, 'today'],
          [4, 'this week midnight'],
          [50, '-1 month'],
        ]);
        await sent(
          '2022-08-01 00:00:00',
          '2022-08-02 12:00:00',
          '2022-08-03 12:00:00',
          '2022-08-03 18:00:00',
        );
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'limit_reached');
      });

      it('counts every status but not the messages of another phone or another user', async () => {
        const { user, apiKey, phone } = await limitedPhone([[2, '-24 hours']]);
        const otherPhone = await makePhone(ds, user.id);
        const other = await makeUser(ds);
        const at = '2022-08-04 12:00:00';
        await makeSended(ds, user.id, { id_phone: phone.id, at, status: 'failed' });
        await makeSended(ds, user.id, { id_phone: otherPhone.id, at });
        await makeSended(ds, user.id, { id_phone: null, at });
        await makeSended(ds, other.user.id, { id_phone: phone.id, at });
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'no_credit');

        await makeSended(ds, user.id, { id_phone: phone.id, at, status: 'delivered' });
        expectSuccess(await check(phone.id, apiKey), 200, 'limit_reached');
      });

      it('reads "this month midnight" as the first day of the month at 00:00', async () => {
        const { apiKey, phone, sent } = await limitedPhone([[2, 'this month midnight']]);
        await sent('2022-08-01 00:00:00', '2022-08-02 08:00:00', '2022-07-31 23:59:59');
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'limit_reached');
      });

      it('ignores the limits when the setting phone_limit is off', async () => {
        const { apiKey, phone, sent } = await limitedPhone([[1, 'today']], { phone_limit: '0' });
        await sent('2022-08-04 10:00:00', '2022-08-04 11:00:00');
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'no_credit');
      });

      it('never reaches a limit for a phone without limits', async () => {
        const { apiKey, phone, sent } = await limitedPhone([]);
        await sent('2022-08-04 10:00:00');
        freezeDate(NOW);

        expectSuccess(await check(phone.id, apiKey), 200, 'no_credit');
      });

      it('counts the sent messages of all the limits in one query on sended', async () => {
        const { apiKey, phone, sent } = await limitedPhone([
          [3, 'today'],
          [10, 'this week midnight'],
          [30, '-1 month'],
        ]);
        await sent('2022-08-04 10:00:00');
        freezeDate(NOW);

        const { result, queries } = await withQueries(
          ds,
          async () => await check(phone.id, apiKey),
        );

        expectSuccess(result, 200, 'no_credit');
        expect(queries.filter((sql) => /\bsended\b/i.test(sql))).toHaveLength(1);
      });

      it('evaluates startpoints in the service time zone (TZ=Europe/Paris)', async () => {
        const paris = await startApp(database(), { TZ: 'Europe/Paris' });
        try {
          const { apiKey, phone, sent } = await limitedPhone([[1, 'today']]);
          // 00:30 on Thursday in Paris; still Wednesday in UTC.
          await sent('2022-08-03 22:30:00');
          freezeDate(NOW);

          expectSuccess(await check(phone.id, apiKey), 200, 'no_credit');
          const response = await api(paris, apiKey).post(`/api/phone/${phone.id}/status/`);
          expectSuccess(response, 200, 'limit_reached');
        } finally {
          await paris.close();
        }
      });
    });
  });

  describe('post_change_phone_status (POST /api/phone/{id}/status/force/)', () => {
    const force = (id: number, apiKey: string) =>
      api(t, apiKey).post(`/api/phone/${id}/status/force/`);

    it('answers 401 INVALID_CREDENTIALS without an API key', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await request(t.url)
        .post(`/api/phone/${phone.id}/status/force/`)
        .type('form')
        .send({ status: 'disabled' });

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect((await phoneRow(phone.id))?.status).toBe('available');
    });

    it('disables a phone from a form and answers the full envelope with the status', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await force(phone.id, apiKey).type('form').send('status=disabled');

      expectSuccess(response, 200, 'disabled');
      expect(await phoneRow(phone.id)).toMatchObject({
        status: 'disabled',
        updated_at: expect.any(String),
      });
    });

    it('re-enables a phone from a JSON body, after which its status can be checked again', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { status: 'disabled' });

      const response = await force(phone.id, apiKey).send({ status: 'available' });

      expectSuccess(response, 200, 'available');
      expectSuccess(await api(t, apiKey).post(`/api/phone/${phone.id}/status`), 200, 'available');
    });

    it('reads status from the query string too', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await api(t, apiKey).post(
        `/api/phone/${phone.id}/status/force?status=disabled`,
      );

      expectSuccess(response, 200, 'disabled');
    });

    // The other values refused: parseForceStatusParams' spec.
    it.each(['limit_reached'])('refuses status %p with INVALID_PARAMETER', async (status) => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);

      const response = await force(phone.id, apiKey)
        .type('form')
        .send(status === undefined ? {} : { status });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}status must be "available" or "disabled".`,
      );
      expect((await phoneRow(phone.id))?.status).toBe('available');
    });

    it('checks status before ownership', async () => {
      const other = await makeUser(ds);
      const phone = await makePhone(ds, other.user.id);
      const { apiKey } = await makeUser(ds);

      const response = await force(phone.id, apiKey).type('form').send({ status: 'off' });

      expectError(response, 400, INVALID_PARAMETER, /status must be/);
    });

    it('answers 404 CANNOT_UPDATE for a nonexistent phone and, identically, for another user’s', async () => {
      const other = await makeUser(ds);
      const theirs = await makePhone(ds, other.user.id);
      const { apiKey } = await makeUser(ds);

      expectError(
        await force(999999, apiKey).type('form').send({ status: 'disabled' }),
        404,
        CANNOT_UPDATE,
        'Cannot update this entry : id : you have no phone 999999.',
      );
      expectError(
        await force(theirs.id, apiKey).type('form').send({ status: 'disabled' }),
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no phone ${theirs.id}.`,
      );
      expect((await phoneRow(theirs.id))?.status).toBe('available');
    });
  });

  describe('rate (docs/dispatch.md#pacing)', () => {
    const RATE_REFUSED =
      `${INVALID}rate must be a number of messages per second between 0.001 and 1000, such as ` +
      '0.5 or 50; leave it empty for no pacing.';
    /** 2099-01-01 00:00:00 UTC, in epoch milliseconds: a slot far ahead. */
    const SLOT = '4070908800000';
    const FUTURE = '2099-01-01 00:00:00';
    let destination = 0;

    const listedRates = async (apiKey: string) =>
      (
        (await api(t, apiKey).get('/api/list/phone/')).body.response as Array<{
          id: number;
          rate: unknown;
        }>
      ).map(({ id, rate }) => ({ id, rate }));

    /** An outbox row of the user, booked on `via_phone` at SLOT unless told otherwise. */
    const makeOutbox = (id_user: number, o: Partial<Outbox>) =>
      ds.getRepository(Outbox).save(
        Object.assign(new Outbox(), {
          id_user,
          originating_scheduled: 999_999,
          id_phone: null,
          id_phone_group: null,
          pace_slot: SLOT,
          destination: `+3361${String(++destination).padStart(7, '0')}`,
          text: 'Hello',
          flash: 0,
          mms: 0,
          tag: null,
          media_ids: null,
          state: 'queued',
          attempts: 0,
          next_attempt_at: FUTURE,
          claimed_by: null,
          claimed_at: null,
          error: null,
          render_input: null,
          created_at: '2024-01-02 03:04:05',
          updated_at: null,
          ...o,
        }),
      );
    /** What pacing reads of a row, its slot as text on every engine. */
    const outboxRow = async (id: number) => {
      const row = await ds.getRepository(Outbox).findOneByOrFail({ id });
      return {
        state: row.state,
        via_phone: row.via_phone,
        pace_slot: row.pace_slot === null ? null : String(row.pace_slot),
        next_attempt_at: row.next_attempt_at,
      };
    };
    const paceNextMs = async (id: number) => {
      const pace = (await phoneRow(id))?.pace_next_ms;
      return pace === null || pace === undefined ? pace : String(pace);
    };

    /**
     * A paced phone of a new user with a booked row waiting for its slot and one being sent,
     * beside another phone of the user with a booked row of its own.
     */
    async function bookedPhone(o: Partial<Phone> = {}) {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { rate: 2, pace_next_ms: SLOT, ...o });
      const other = await makePhone(ds, user.id, { rate: 2, pace_next_ms: SLOT });
      const waiting = await makeOutbox(user.id, { via_phone: phone.id });
      const sending = await makeOutbox(user.id, {
        via_phone: phone.id,
        state: 'sending',
        claimed_by: 'worker-1',
        claimed_at: '2024-01-02 03:04:05',
      });
      const elsewhere = await makeOutbox(user.id, { via_phone: other.id });
      return { user, apiKey, phone, other, waiting, sending, elsewhere };
    }
    type Booked = Awaited<ReturnType<typeof bookedPhone>>;

    const BOOKED_WAITING = {
      state: 'queued',
      pace_slot: SLOT,
      next_attempt_at: FUTURE,
    };

    /** The phone's waiting row is due now, without a phone or a slot, and the rest is kept. */
    async function expectUnbooked(booked: Booked, since: string): Promise<void> {
      const waiting = await outboxRow(booked.waiting.id);
      expect(waiting).toEqual({
        state: 'queued',
        via_phone: null,
        pace_slot: null,
        next_attempt_at: expect.any(String),
      });
      expect(waiting.next_attempt_at >= since && waiting.next_attempt_at <= nowUtc()).toBe(true);
      await expectOthersKept(booked);
    }

    /** Nothing of the phone's pacing changed. */
    async function expectKept(booked: Booked): Promise<void> {
      expect(await outboxRow(booked.waiting.id)).toEqual({
        ...BOOKED_WAITING,
        via_phone: booked.phone.id,
      });
      expect(await paceNextMs(booked.phone.id)).toBe(SLOT);
      await expectOthersKept(booked);
    }

    /** The row being sent, and the other phone's pacing, are never touched. */
    async function expectOthersKept(booked: Booked): Promise<void> {
      expect(await outboxRow(booked.sending.id)).toEqual({
        ...BOOKED_WAITING,
        state: 'sending',
        via_phone: booked.phone.id,
      });
      expect(await outboxRow(booked.elsewhere.id)).toEqual({
        ...BOOKED_WAITING,
        via_phone: booked.other.id,
      });
      expect(await paceNextMs(booked.other.id)).toBe(SLOT);
    }

    it('creates phones with a rate from a form, JSON, a query string and multipart, lists it as a JSON number, and null without one', async () => {
      const { apiKey } = await makeUser(ds);

      const fromForm = await api(t, apiKey)
        .form('/api/phone/')
        .send('name=form&adapter=test&rate=0.5');
      const fromJson = await api(t, apiKey).json('/api/phone/', {
        name: 'json',
        adapter: 'test',
        rate: 12.25,
      });
      const fromQuery = await api(t, apiKey).post('/api/phone/?name=query&adapter=test&rate=50');
      const fromMultipart = await api(t, apiKey)
        .post('/api/phone/')
        .field('name', 'multipart')
        .field('adapter', 'test')
        .field('rate', '0.001');
      const unpaced = await api(t, apiKey)
        .form('/api/phone/')
        .send({ name: 'unpaced', adapter: 'test' });

      const created = [fromForm, fromJson, fromQuery, fromMultipart, unpaced];
      for (const response of created) {
        expectSuccess(response, 201, expect.any(Number));
      }
      const ids = created.map((response) => response.body.response as number);
      expect(await listedRates(apiKey)).toEqual([
        { id: ids[0], rate: 0.5 },
        { id: ids[1], rate: 12.25 },
        { id: ids[2], rate: 50 },
        { id: ids[3], rate: 0.001 },
        { id: ids[4], rate: null },
      ]);
      expect((await phoneRow(ids[4]))?.pace_next_ms).toBeNull();
    });

    it('accepts the bounds, 0.001 and 1000, and a blank rate as none', async () => {
      const { apiKey } = await makeUser(ds);

      const low = await api(t, apiKey).json('/api/phone/', {
        name: 'l',
        adapter: 'test',
        rate: '0.001',
      });
      const high = await api(t, apiKey).json('/api/phone/', {
        name: 'h',
        adapter: 'test',
        rate: 1000,
      });
      const blank = await api(t, apiKey).form('/api/phone/').send('name=b&adapter=test&rate=%20');

      expect([low, high, blank].map((response) => response.status)).toEqual([201, 201, 201]);
      expect((await listedRates(apiKey)).map(({ rate }) => rate)).toEqual([0.001, 1000, null]);
    });

    it('does not list the pacing state of the dispatch', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id, { rate: 2, pace_next_ms: SLOT });

      const listed = await api(t, apiKey).get('/api/list/phone/');

      expect(listed.body.response[0]).toMatchObject({ rate: 2 });
      expect(JSON.stringify(listed.body)).not.toContain('pace');
      expect(JSON.stringify(listed.body)).not.toContain(SLOT);
    });

    // The other rates refused: parseCreatePhoneParams' spec.
    it.each<[string, unknown]>([['text', 'fast']])(
      'refuses %s with HTTP 400 INVALID_PARAMETER, creating nothing',
      async (_, rate) => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).json('/api/phone/', {
          name: 'bad rate',
          adapter: 'test',
          rate,
        });

        expectError(response, 400, INVALID_PARAMETER, RATE_REFUSED);
        expect(await phonesNamed(user.id, 'bad rate')).toBe(0);
      },
    );

    it('refuses a bad rate from a form and from the query string alike', async () => {
      const { user, apiKey } = await makeUser(ds);

      const fromForm = await api(t, apiKey)
        .form('/api/phone/')
        .send('name=bad&adapter=test&rate=-0.5');
      const fromQuery = await api(t, apiKey).post('/api/phone/?name=bad&adapter=test&rate=abc');

      expectError(fromForm, 400, INVALID_PARAMETER, RATE_REFUSED);
      expectError(fromQuery, 400, INVALID_PARAMETER, RATE_REFUSED);
      expect(await phonesNamed(user.id, 'bad')).toBe(0);
    });

    it('changes the rate on update, keeps it when not sent, and removes it when empty or null', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { rate: 2 });
      const path = `/api/phone/${phone.id}/`;
      const rate = async () => (await listedRates(apiKey))[0].rate;

      expectSuccess(await api(t, apiKey).form(path).send('rate=0.25'), 200, true);
      expect(await rate()).toBe(0.25);
      expectSuccess(await api(t, apiKey).form(path).send('name=renamed'), 200, true);
      expect(await rate()).toBe(0.25);
      expectSuccess(await api(t, apiKey).json(path, { rate: 1000 }), 200, true);
      expect(await rate()).toBe(1000);
      expectSuccess(await api(t, apiKey).form(path).send('rate='), 200, true);
      expect(await rate()).toBeNull();
      expectSuccess(await api(t, apiKey).post(`${path}?rate=12.25`), 200, true);
      expect(await rate()).toBe(12.25);
      expectSuccess(await api(t, apiKey).json(path, { rate: null }), 200, true);
      expect(await rate()).toBeNull();
      expect((await phoneRow(phone.id))?.name).toBe('renamed');
    });

    // The other rates refused: parseUpdatePhoneParams' spec.
    it.each<[string, unknown]>([['zero', '0']])(
      'refuses %s on update with HTTP 400 INVALID_PARAMETER, changing nothing',
      async (_, rate) => {
        const booked = await bookedPhone({ name: 'paced' });

        const response = await api(t, booked.apiKey).json(`/api/phone/${booked.phone.id}/`, {
          name: 'renamed',
          rate,
        });

        expectError(response, 400, INVALID_PARAMETER, RATE_REFUSED);
        expect(await phoneRow(booked.phone.id)).toMatchObject({ name: 'paced', rate: 2 });
        await expectKept(booked);
      },
    );

    describe('resets the pacing of the phone, in the transaction of the change', () => {
      it.each<[string, string, number | null]>([
        ['a new rate', 'rate=0.5', 0.5],
        ['a rate removed', 'rate=', null],
      ])(
        '%s puts the rows waiting for their slot back in the queue, due now; rows being sent keep theirs',
        async (_, body, stored) => {
          const booked = await bookedPhone();
          const since = nowUtc();

          const response = await api(t, booked.apiKey)
            .form(`/api/phone/${booked.phone.id}/`)
            .send(body);

          expectSuccess(response, 200, true);
          expect((await phoneRow(booked.phone.id))?.rate).toBe(stored);
          expect(await paceNextMs(booked.phone.id)).toBeNull();
          await expectUnbooked(booked, since);
        },
      );

      it('a rate set on an unpaced phone resets it too', async () => {
        const booked = await bookedPhone({ rate: null });
        const since = nowUtc();

        expectSuccess(
          await api(t, booked.apiKey).json(`/api/phone/${booked.phone.id}/`, { rate: 3 }),
          200,
          true,
        );

        expect(await paceNextMs(booked.phone.id)).toBeNull();
        await expectUnbooked(booked, since);
      });

      it('un-books the rows in the transaction that stores the new rate', async () => {
        const booked = await bookedPhone();

        const { result, queries } = await withQueries(ds, () =>
          api(t, booked.apiKey).form(`/api/phone/${booked.phone.id}/`).send('rate=4'),
        );

        expectSuccess(result, 200, true);
        const unbook = queries.findIndex((sql) => /^UPDATE outbox SET via_phone = NULL/.test(sql));
        const rate = queries.findIndex((sql) => /^UPDATE .phone. SET .*\brate\b/.test(sql));
        const start = queries.findLastIndex(
          (sql, index) => index < unbook && /^(START|BEGIN) TRANSACTION/i.test(sql),
        );
        const commit = queries.findIndex((sql, index) => index > start && /^COMMIT/i.test(sql));
        expect(unbook).toBeGreaterThan(start);
        expect(start).toBeGreaterThanOrEqual(0);
        expect(rate).toBeGreaterThan(unbook);
        expect(commit).toBeGreaterThan(rate);
      });

      it('the same rate again, or other fields alone, keep the bookings', async () => {
        const booked = await bookedPhone();
        const path = `/api/phone/${booked.phone.id}/`;

        expectSuccess(await api(t, booked.apiKey).form(path).send('rate=2'), 200, true);
        expectSuccess(
          await api(t, booked.apiKey).json(path, { name: 'x', priority: 3 }),
          200,
          true,
        );

        await expectKept(booked);
      });

      it('an update refused by the adapter test keeps the bookings and the rate', async () => {
        const booked = await bookedPhone();

        const response = await api(t, booked.apiKey).json(`/api/phone/${booked.phone.id}/`, {
          rate: 5,
          adapter_data: { delivery: 'lost' },
        });

        expect(response.status).toBe(422);
        expect((await phoneRow(booked.phone.id))?.rate).toBe(2);
        await expectKept(booked);
      });

      it('deleting the phone puts its waiting rows back in the queue', async () => {
        const booked = await bookedPhone();
        const since = nowUtc();

        const response = await api(t, booked.apiKey).delete(`/api/phone/${booked.phone.id}/`);

        expectSuccess(response, 200, true);
        expect(await phoneRow(booked.phone.id)).toBeNull();
        await expectUnbooked(booked, since);
      });

      it("deleting another user's phone is refused and resets nothing", async () => {
        const booked = await bookedPhone();
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).delete(`/api/phone/${booked.phone.id}/`);

        expect(response.status).toBe(404);
        await expectKept(booked);
      });

      it('a status forced to another value resets it; forcing the same status does not', async () => {
        const booked = await bookedPhone();
        const force = (status: string) =>
          api(t, booked.apiKey).json(`/api/phone/${booked.phone.id}/status/force/`, { status });

        expectSuccess(await force('available'), 200, 'available');
        await expectKept(booked);

        const since = nowUtc();
        expectSuccess(await force('disabled'), 200, 'disabled');
        expect(await paceNextMs(booked.phone.id)).toBeNull();
        await expectUnbooked(booked, since);
      });

      it('a status check that finds another status resets it; one that finds the same does not', async () => {
        const unchanged = await bookedPhone();
        const booked = await bookedPhone({ status: 'no_credit' });
        const check = ({ phone, apiKey }: Booked) =>
          api(t, apiKey).post(`/api/phone/${phone.id}/status/`);

        expectSuccess(await check(unchanged), 200, 'available');
        await expectKept(unchanged);

        const since = nowUtc();
        expectSuccess(await check(booked), 200, 'available');
        expect(await paceNextMs(booked.phone.id)).toBeNull();
        await expectUnbooked(booked, since);
      });
    });
  });

  describe('OpenAPI', () => {
    it('documents the five phone operations with their operation ids and body fields', async () => {
      const document = (await request(t.url).get('/api/docs-json')).body as {
        paths: Record<
          string,
          Record<
            string,
            {
              operationId: string;
              requestBody?: {
                content: Record<string, { schema: { properties: Record<string, unknown> } }>;
              };
            }
          >
        >;
      };
      const bodyFields = (path: string, method: string) =>
        Object.keys(
          document.paths[path][method].requestBody?.content['application/x-www-form-urlencoded']
            .schema.properties ?? {},
        );

      expect(document.paths['/api/phone'].post.operationId).toBe('post_phone');
      expect(document.paths['/api/phone/{id}'].post.operationId).toBe('post_update_phone');
      expect(document.paths['/api/phone/{id}'].delete.operationId).toBe('delete_phone');
      expect(document.paths['/api/phone/{id}/status'].post.operationId).toBe(
        'post_update_phone_status',
      );
      expect(document.paths['/api/phone/{id}/status/force'].post.operationId).toBe(
        'post_change_phone_status',
      );
      const phoneFields = ['name', 'adapter', 'adapter_data', 'priority', 'rate', 'limits'];
      expect(bodyFields('/api/phone', 'post')).toEqual(phoneFields);
      expect(bodyFields('/api/phone/{id}', 'post')).toEqual(phoneFields);
      expect(bodyFields('/api/phone/{id}/status/force', 'post')).toEqual(['status']);
    });
  });
});
