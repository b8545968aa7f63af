import request from 'supertest';
import { DataSource } from 'typeorm';
import { SmsStop } from '../../src/stop-list/entities/sms-stop.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import {
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  CANNOT_DELETE,
  INVALID,
  MISSING,
  ENVELOPE_KEYS,
  expectSuccess,
  expectError,
} from '../support/envelope';

/*
 * The STOP list through the API (docs/api.md#get_stop, #post_stop, #delete_stop) over real HTTP,
 * on every engine, and its effect on the dispatch (docs/dispatch.md#expansion) with the inline
 * worker and the `test` adapter. The service runs in Paris time, so that dates show conversion.
 */

const PUBLIC_URL = 'https://sms.example.org';

describeEachDatabase('STOP list', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      PUBLIC_URL,
      TZ: 'Europe/Paris',
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const stopsOf = async (id_user: number) =>
    (await ds.getRepository(SmsStop).find({ where: { id_user }, order: { id: 'ASC' } })).map(
      ({ number }) => number,
    );
  const insertStop = (id_user: number, number: string, created_at = '2026-01-01 00:00:00') =>
    ds.getRepository(SmsStop).save(Object.assign(new SmsStop(), { id_user, number, created_at }));
  const list = (apiKey: string, query: Record<string, string> = {}) =>
    api(t, apiKey, 'query').get('/api/stop/', query);
  const add = (apiKey: string, body: Record<string, unknown> | string) =>
    api(t, apiKey).form('/api/stop/').send(body);
  const remove = (apiKey: string, id: number | string) => api(t, apiKey).delete(`/api/stop/${id}/`);

  describe('get_stop (GET /api/stop/)', () => {
    it('answers 401 INVALID_CREDENTIALS in the envelope without an API key', async () => {
      const response = await request(t.url).get('/api/stop/');

      expectError(
        response,
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key\. Please provide a valid API key/,
      );
    });

    it("lists the caller's numbers as {id, number, created_at}, dates in the service time zone, and none of another user's", async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const first = await insertStop(user.id, '+33612345678', '2026-01-01 00:00:00');
      await insertStop(other.user.id, '+33699999999');
      const second = await insertStop(user.id, '+14155552671', '2026-07-01 12:30:00');

      const response = await list(apiKey);

      expectSuccess(response, 200, [
        { id: first.id, number: '+33612345678', created_at: '2026-01-01 01:00:00' },
        { id: second.id, number: '+14155552671', created_at: '2026-07-01 14:30:00' },
      ]);
    });

    it('answers an empty list without links when the caller has no number', async () => {
      const { apiKey } = await makeUser(ds);

      expectSuccess(await list(apiKey), 200, []);
    });

    it('pages 25 at a time with next / prev links keeping the key, as get_entries does', async () => {
      const { user, apiKey } = await makeUser(ds);
      const ids: number[] = [];
      for (let index = 0; index < 30; index += 1) {
        ids.push((await insertStop(user.id, `+336123456${String(index).padStart(2, '0')}`)).id);
      }
      const link = (query: string) => `${PUBLIC_URL}/api/stop/?${query}&api_key=${apiKey}`;

      const first = await list(apiKey);
      const page1 = await list(apiKey, { page: '1' });
      const before = await list(apiKey, { before_id: String(ids[25]) });

      expect(first.body.response.map((row: { id: number }) => row.id)).toEqual(ids.slice(0, 25));
      expect(first.body.next).toBe(link(`after_id=${ids[24]}`));
      expect(first.body.prev).toBeNull();
      expect(page1.body.response.map((row: { id: number }) => row.id)).toEqual(ids.slice(25));
      expect(page1.body.next).toBeNull();
      expect(page1.body.prev).toBe(link(`before_id=${ids[25]}`));
      expect(before.body.response.map((row: { id: number }) => row.id)).toEqual(ids.slice(0, 25));
      expect(before.body.next).toBe(link(`after_id=${ids[24]}`));
      const after = await list(apiKey, { after_id: String(ids[24]) });
      expect(after.body.response.map((row: { id: number }) => row.id)).toEqual(ids.slice(25));
      expect(after.body.prev).toBe(link(`before_id=${ids[25]}`));
      expect(after.body.next).toBeNull();
    });

    it('leads a page past the end back to the page before it', async () => {
      const { user, apiKey } = await makeUser(ds);
      await insertStop(user.id, '+33612345678');

      const response = await list(apiKey, { page: '3' });

      expectSuccess(response, 200, [], {
        prev: `${PUBLIC_URL}/api/stop/?page=2&api_key=${apiKey}`,
      });
    });

    it.each([
      [{ page: '-1' }, `${INVALID}page must be a non-negative integer, got "-1".`],
      [{ page: '1.5' }, `${INVALID}page must be a non-negative integer, got "1.5".`],
      [{ after_id: 'abc' }, `${INVALID}after_id must be a non-negative integer, got "abc".`],
      [
        { before_id: '99999999999' },
        `${INVALID}before_id must be a non-negative integer, got "99999999999".`,
      ],
      [{ 'after_id[]': '1' }, `${INVALID}after_id must be a non-negative integer, got a list.`],
      [
        { after_id: '1', before_id: '2' },
        `${INVALID}after_id, before_id : give at most one of after_id and before_id.`,
      ],
    ])('refuses the cursor %j with INVALID_PARAMETER naming it', async (query, message) => {
      const { apiKey } = await makeUser(ds);

      expectError(await list(apiKey, query), 400, INVALID_PARAMETER, message);
    });
  });

  describe('post_stop (POST /api/stop/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and adds nothing', async () => {
      const { user } = await makeUser(ds);

      const response = await request(t.url)
        .post('/api/stop/')
        .type('form')
        .send({ number: '+33612345678' });

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await stopsOf(user.id)).toEqual([]);
    });

    it('adds a number in E.164 with HTTP 201 and its id, listed at once', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await add(apiKey, { number: '+33 6 12 34 56 78' });

      expectSuccess(response, 201, expect.any(Number));
      const listed = await list(apiKey);
      expect(listed.body.response).toEqual([
        { id: response.body.response, number: '+33612345678', created_at: expect.any(String) },
      ]);
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
    });

    it('answers a number already there, however written, with HTTP 200 and its existing id', async () => {
      const { user, apiKey } = await makeUser(ds);
      const created = await add(apiKey, { number: '+33612345678' });

      const again = await add(apiKey, { number: '+33.6.12.34.56.78' });

      expectSuccess(again, 200, created.body.response);
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
    });

    it('ends concurrent adds of one number as one row, one 201 and the same id everywhere', async () => {
      const { user, apiKey } = await makeUser(ds);

      const responses = await Promise.all(
        Array.from({ length: 8 }, () => add(apiKey, { number: '+33612345670' })),
      );

      const ids = new Set(responses.map((response) => response.body.response as number));
      expect(responses.map((response) => response.body.error)).toEqual(Array(8).fill(0));
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 200)).toHaveLength(7);
      expect(ids.size).toBe(1);
      expect(await stopsOf(user.id)).toEqual(['+33612345670']);
    });

    it("adds the number another user stopped as the caller's own entry", async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const theirs = await insertStop(other.user.id, '+33612345678');

      const response = await add(apiKey, { number: '+33612345678' });

      expectSuccess(response, 201, expect.any(Number));
      expect(response.body.response).not.toBe(theirs.id);
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
      expect(await stopsOf(other.user.id)).toEqual(['+33612345678']);
    });

    it('reads a national number in the default_phone_country of the caller', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });

      expectSuccess(await add(apiKey, { number: '06 12 34 56 78' }), 201, expect.any(Number));
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
    });

    it('takes the number from a JSON body too', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).json('/api/stop/', { number: '+33612345678' });

      expectSuccess(response, 201, expect.any(Number));
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
    });

    it.each([[{}], [{ number: '' }], [{ number: '   ' }]])(
      'refuses %j with MISSING_PARAMETER naming number',
      async (body) => {
        const { user, apiKey } = await makeUser(ds);

        expectError(
          await add(apiKey, body),
          400,
          MISSING_PARAMETER,
          `${MISSING}number is required: the phone number to stop sending to.`,
        );
        expect(await stopsOf(user.id)).toEqual([]);
      },
    );

    const NUMBER_INVALID = `${INVALID}number must be a valid phone number, in international format (+…).`;
    it.each<[string, string | Record<string, unknown>]>([
      ['a text', 'number=abc'],
      ['a national number without a default country', 'number=0612345678'],
      ['a number too short', 'number=%2B336123'],
      ['a list', 'number[]=%2B33612345678'],
      ['an object', 'number[a]=%2B33612345678'],
      ['10,000 characters', `number=${'1'.repeat(10_000)}`],
      ['a number too long', 'number=%2B3361234567890123'],
    ])('refuses %s with INVALID_PARAMETER naming number, adding nothing', async (_what, body) => {
      const { user, apiKey } = await makeUser(ds);

      expectError(await add(apiKey, body), 400, INVALID_PARAMETER, NUMBER_INVALID);
      expect(await stopsOf(user.id)).toEqual([]);
    });

    it.each([
      ['a JSON number', '{"number": 33612345678}'],
      ['a JSON boolean', '{"number": true}'],
      ['a JSON null', '{"number": null}'],
    ])('refuses %s in a JSON body naming number, never a 500', async (_what, body) => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).json('/api/stop/', body);

      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/number/);
      expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
      expect(await stopsOf(user.id)).toEqual([]);
    });

    it('refuses a body that is not JSON with INVALID_PARAMETER, adding nothing', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).json('/api/stop/', '{"number": "+33612345678"');

      expect(response.status).toBe(400);
      expect(response.body.error).toBe(INVALID_PARAMETER);
      expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
      expect(await stopsOf(user.id)).toEqual([]);
    });
  });

  describe('delete_stop (DELETE /api/stop/{id}/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and deletes nothing', async () => {
      const { user } = await makeUser(ds);
      const stop = await insertStop(user.id, '+33612345678');

      const response = await request(t.url).delete(`/api/stop/${stop.id}/`);

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await stopsOf(user.id)).toEqual(['+33612345678']);
    });

    it('removes a number with true, and it is no longer listed', async () => {
      const { user, apiKey } = await makeUser(ds);
      const stop = await insertStop(user.id, '+33612345678');
      const kept = await insertStop(user.id, '+33612345679');

      expectSuccess(await remove(apiKey, stop.id), 200, true);

      expect(await stopsOf(user.id)).toEqual(['+33612345679']);
      expect((await list(apiKey)).body.response.map((row: { id: number }) => row.id)).toEqual([
        kept.id,
      ]);
    });

    it("answers another user's id exactly like a nonexistent one, deleting nothing", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const theirs = await insertStop(other.user.id, '+33612345678');
      const missingId = theirs.id + 100_000;

      const foreign = await remove(apiKey, theirs.id);
      const missing = await remove(apiKey, missingId);

      const message = (id: number) =>
        `Cannot delete this entry. id : ${id} is not the id of a number of your STOP list.`;
      expectError(foreign, 404, CANNOT_DELETE, message(theirs.id));
      expectError(missing, 404, CANNOT_DELETE, message(missingId));
      expect(await stopsOf(other.user.id)).toEqual(['+33612345678']);
    });

    it('answers an id deleted already with 404 CANNOT_DELETE', async () => {
      const { user, apiKey } = await makeUser(ds);
      const stop = await insertStop(user.id, '+33612345678');
      await remove(apiKey, stop.id);

      expectError(await remove(apiKey, stop.id), 404, CANNOT_DELETE, /^Cannot delete this entry\./);
    });

    it.each(['abc', '-1', '1.5', '99999999999', '1e3', '%20'])(
      'refuses the id %j with INVALID_PARAMETER naming id, deleting nothing',
      async (id) => {
        const { user, apiKey } = await makeUser(ds);
        await insertStop(user.id, '+33612345678');

        const response = await remove(apiKey, id);

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : id must be a non-negative integer/,
        );
        expect(await stopsOf(user.id)).toEqual(['+33612345678']);
      },
    );
  });

  describe('the dispatch', () => {
    const schedule = async (apiKey: string, numbers: string[], text: string) => {
      const response = await api(t, apiKey).json('/api/scheduled/', { text, numbers });
      expect(response.status).toBe(201);
    };
    const sended = async (apiKey: string, count: number) => {
      let entries: Array<{ destination: string; text: string }> = [];
      await waitFor(async () => {
        const response = await api(t, apiKey, 'query').get('/api/list/sended/');
        entries = response.body.response;
        return entries.length >= count;
      }, `${count} sent entries`);
      const pending = await api(t, apiKey, 'query').get('/api/list/scheduled/');
      expect(pending.body.response).toEqual([]);
      return entries.map((entry) => [entry.destination, entry.text]).sort();
    };

    it('skips a number added through POST /api/stop/, and reaches it again once deleted', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id);
      const stop = await add(apiKey, { number: '+33612345678' });

      await schedule(apiKey, ['+33612345678', '+33612345679'], 'First');
      expect(await sended(apiKey, 1)).toEqual([['+33612345679', 'First']]);

      expectSuccess(await remove(apiKey, stop.body.response as number), 200, true);
      await schedule(apiKey, ['+33612345678'], 'Second');
      expect(await sended(apiKey, 2)).toEqual([
        ['+33612345678', 'Second'],
        ['+33612345679', 'First'],
      ]);
    });
  });
});
