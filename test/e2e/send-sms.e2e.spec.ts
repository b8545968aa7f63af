import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { countRows, countScheduledRows, storedScheduled } from '../support/scheduled.factories';
import { freezeDate } from '../support/instruments';

/*
 * get_send_sms (docs/api.md#get_send_sms) over real HTTP against the real app, on every database
 * engine, in a service whose time zone is Europe/Paris: the message it creates is read back.
 */

const INVALID_PARAMETER = 2;
const MISSING_PARAMETER = 4;
const CANNOT_CREATE = 8;

function expectEnvelope(
  response: Response,
  status: number,
  body: { error: number; message: string | null; response: unknown },
): void {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status,
    body: { ...body, next: null, prev: null },
  });
}

describeEachDatabase('get_send_sms', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { TZ: 'Europe/Paris' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  const send = (apiKey: string | null, query: Record<string, string>) =>
    request(t.url)
      .get('/api/send-sms/')
      .query(apiKey === null ? query : { api_key: apiKey, ...query });

  /** Sends a raw query string, as a browser or `curl 'http://…?…'` would. */
  const sendRaw = (queryString: string) => request(t.url).get(`/api/send-sms/?${queryString}`);

  it('refuses a request without an API key with 401 and creates nothing', async () => {
    const { user } = await makeUser(ds);
    const response = await send(null, { to: '+33612345678', text: 'Hi' });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe(1);
    expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
  });

  it('creates a message due now, one number with data [], no phone group, flash and mms off, no tag; 200 with its id', async () => {
    const { user, apiKey } = await makeUser(ds);
    freezeDate('2031-07-08T09:10:11Z');

    const response = await send(apiKey, { to: '+33 6 12 34 56 78', text: 'Hello & welcome' });

    expectEnvelope(response, 200, { error: 0, message: null, response: expect.any(Number) });
    const stored = await storedScheduled(ds, response.body.response as number);
    expect(stored).toEqual({
      scheduled: {
        id: response.body.response,
        id_user: user.id,
        at: '2031-07-08 09:10:11',
        text: 'Hello & welcome',
        flash: 0,
        mms: 0,
        id_phone: null,
        id_phone_group: null,
        tag: null,
        validity: null,
        created_at: '2031-07-08 09:10:11',
        updated_at: null,
        priority: 0,
        send_window: null,
        effective_window: null,
        send_after: '2031-07-08 09:10:11',
        hidden: 0,
      },
      numbers: [{ number: '+33612345678', data: '[]' }],
      contactIds: [],
      groupIds: [],
      conditionalGroupIds: [],
      medias: [],
    });
  });

  it('accepts the path without its trailing slash and the key in the X-Api-Key header', async () => {
    const { apiKey } = await makeUser(ds);
    const response = await api(t, apiKey)
      .get('/api/send-sms')
      .query({ to: '+33612345678', text: 'Hi' });
    expect(response.status).toBe(200);
    expect(response.body.response).toEqual(expect.any(Number));
  });

  it("normalises a national number with the user's default_phone_country", async () => {
    const { apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
    const response = await send(apiKey, { to: '06 12 34 56 78', text: 'Hi' });
    expect(response.status).toBe(200);
    expect((await storedScheduled(ds, response.body.response as number)).numbers).toEqual([
      { number: '+33612345678', data: '[]' },
    ]);
  });

  describe('missing to or text: MISSING_PARAMETER naming the missing ones', () => {
    it('names to when it is absent or empty', async () => {
      const { user, apiKey } = await makeUser(ds);
      for (const query of [{ text: 'Hi' }, { to: '', text: 'Hi' }] as Array<
        Record<string, string>
      >) {
        expectEnvelope(await send(apiKey, query), 400, {
          error: MISSING_PARAMETER,
          message: 'One require parameter is missing : to.',
          response: null,
        });
      }
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('names text when it is absent or empty', async () => {
      const { apiKey } = await makeUser(ds);
      for (const query of [{ to: '+33612345678' }, { to: '+33612345678', text: '' }] as Array<
        Record<string, string>
      >) {
        expectEnvelope(await send(apiKey, query), 400, {
          error: MISSING_PARAMETER,
          message: 'One require parameter is missing : text.',
          response: null,
        });
      }
    });

    it('names both when both are missing', async () => {
      const { apiKey } = await makeUser(ds);
      expectEnvelope(await send(apiKey, {}), 400, {
        error: MISSING_PARAMETER,
        message: 'One require parameter is missing : to, text.',
        response: null,
      });
    });

    it('counts a to that is not a valid number as missing, saying why', async () => {
      const { apiKey } = await makeUser(ds);
      expectEnvelope(await send(apiKey, { to: '0612345678', text: 'Hi' }), 400, {
        error: MISSING_PARAMETER,
        message:
          'One require parameter is missing : to ("0612345678" is not a valid phone number).',
        response: null,
      });
      expectEnvelope(await send(apiKey, { to: 'abc' }), 400, {
        error: MISSING_PARAMETER,
        message: 'One require parameter is missing : to ("abc" is not a valid phone number), text.',
        response: null,
      });
    });

    it('reads a raw + in the query string (`to=+336…`, decoded as a space) as the + that was typed', async () => {
      const { apiKey } = await makeUser(ds);
      const raw = await sendRaw(`api_key=${apiKey}&to=+33612345678&text=Hi`);
      expect(raw.status).toBe(200);
      expect((await storedScheduled(ds, raw.body.response as number)).numbers).toEqual([
        expect.objectContaining({ number: '+33612345678' }),
      ]);
      const encoded = await sendRaw(`api_key=${apiKey}&to=%2B33612345678&text=Hi+there`);
      expect(encoded.status).toBe(200);
      expect((await storedScheduled(ds, encoded.body.response as number)).scheduled?.text).toBe(
        'Hi there',
      );
    });

    it('still refuses two spaces or a space before a letter in to', async () => {
      const { apiKey } = await makeUser(ds);
      for (const to of ['++33612345678', '+a33612345678']) {
        const response = await sendRaw(`api_key=${apiKey}&to=${to}&text=Hi`);
        expect({ status: response.status, error: response.body.error }).toEqual({
          status: 400,
          error: MISSING_PARAMETER,
        });
      }
    });
  });

  describe('text', () => {
    it('accepts 1000 code points, astral characters counting one each', async () => {
      const { apiKey } = await makeUser(ds);
      const text = '🎉'.repeat(1000);
      const response = await send(apiKey, { to: '+33612345678', text });
      expect(response.status).toBe(200);
      expect((await storedScheduled(ds, response.body.response as number)).scheduled?.text).toBe(
        text,
      );
    });

    it('refuses more than 1000 code points with INVALID_PARAMETER naming text', async () => {
      const { apiKey } = await makeUser(ds);
      expectEnvelope(await send(apiKey, { to: '+33612345678', text: 'a'.repeat(1001) }), 400, {
        error: INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : text must be at most 1000 characters long, got 1001.',
        response: null,
      });
    });

    it('refuses a text that is not a string (text[]=…) with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await sendRaw(`api_key=${apiKey}&to=%2B33612345678&text[]=Hi`);
      expectEnvelope(response, 400, {
        error: INVALID_PARAMETER,
        message: 'You have specified an invalid parameter : text must be a string.',
        response: null,
      });
    });

    it("refuses, with templating on, a template that does not compile with INVALID_PARAMETER quoting the parser's reason and where, before the phone", async () => {
      const { user, apiKey } = await makeUser(ds);
      const text = 'Hello\n{{ contact.firstname }';
      expectEnvelope(await send(apiKey, { to: '+33612345678', text, id_phone: '999999' }), 400, {
        error: INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : text : The template does not compile: ' +
          "Unable to find closing bracket '}}' opened at line 2, column 1.",
        response: null,
      });
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('takes a template that does not compile as plain text when templating is off', async () => {
      const { apiKey } = await makeUser(ds, { settings: { templating: '0' } });
      const response = await send(apiKey, { to: '+33612345678', text: 'Hello {{ contact.x }' });
      expect(response.status).toBe(200);
    });
  });

  describe('id_phone', () => {
    it('stores an own phone', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const response = await send(apiKey, {
        to: '+33612345678',
        text: 'Hi',
        id_phone: String(phone.id),
      });
      expect(response.status).toBe(200);
      expect((await storedScheduled(ds, response.body.response as number)).scheduled).toMatchObject(
        { id_phone: phone.id, id_phone_group: null },
      );
    });

    it('takes an empty id_phone as absent', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await send(apiKey, { to: '+33612345678', text: 'Hi', id_phone: '' });
      expect(response.status).toBe(200);
      expect(
        (await storedScheduled(ds, response.body.response as number)).scheduled?.id_phone,
      ).toBe(null);
    });

    it("refuses another user's or a nonexistent phone alike, with 422 CANNOT_CREATE naming id_phone", async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const phone = await makePhone(ds, other.user.id);
      for (const id of [phone.id, 999_999]) {
        expectEnvelope(
          await send(apiKey, { to: '+33612345678', text: 'Hi', id_phone: String(id) }),
          422,
          {
            error: CANNOT_CREATE,
            message: `Cannot create a new entry. id_phone : ${id} is not the id of one of your phones.`,
            response: null,
          },
        );
      }
      expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
    });

    it('refuses an id_phone that is not a non-negative integer with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await send(apiKey, { to: '+33612345678', text: 'Hi', id_phone: 'x1' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(INVALID_PARAMETER);
      expect(response.body.message).toMatch(
        /^You have specified an invalid parameter : id_phone must be a non-negative integer/,
      );
    });
  });
});

describeEachDatabase('get_send_sms: a failing creation', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
    // Only this database loses the table: inserting the number then fails for real.
    await ds.query('DROP TABLE scheduled_number');
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 422 CANNOT_CREATE and leaves no scheduled message', async () => {
    const { user, apiKey } = await makeUser(ds);
    const response = await api(t, apiKey, 'query').get('/api/send-sms/', {
      to: '+33612345678',
      text: 'Hi',
    });
    expectEnvelope(response, 422, {
      error: CANNOT_CREATE,
      message: 'Cannot create a new entry.',
      response: null,
    });
    expect(
      await countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled WHERE id_user = ?', [user.id]),
    ).toBe(0);
  });
});
