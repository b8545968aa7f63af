import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Sended } from '../../src/sended/entities/sended.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeSended, makeUser } from '../support/factories';

/*
 * get_usage, get_sms_status_stats and get_invalid_numbers (docs/api.md, docs/api-choices.md),
 * over real HTTP against the real app, on every database engine. Each test makes
 * its own users; messages are inserted with chosen UTC `at` values.
 */

type Row = Record<string, unknown>;

const INVALID_CREDENTIALS = 1;
const INVALID_PARAMETER = 2;
const MISSING_PARAMETER = 4;
const INVALID_PREFIX = 'You have specified an invalid parameter : ';
const MISSING_PREFIX = 'One require parameter is missing : ';

function expectError(response: Response, status: number, error: number, message: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ error, message, response: null, next: null, prev: null });
}

function expectInvalid(response: Response, detail: string): void {
  expectError(response, 400, INVALID_PARAMETER, INVALID_PREFIX + detail);
}

function expectMissing(response: Response, detail: string): void {
  expectError(response, 400, MISSING_PARAMETER, MISSING_PREFIX + detail);
}

function expectSuccess(response: Response, result: unknown): void {
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    error: 0,
    message: null,
    response: result,
    next: null,
    prev: null,
  });
}

describeEachDatabase('statistics', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, apiKey: string, query: Record<string, unknown> = {}) =>
    api(t, apiKey, 'query').get(path, { ...query });

  /** Sent messages of `userId`, one per `at` (UTC), with the other fields given. */
  async function sent(userId: number, ats: string[], fields: Partial<Sended> = {}): Promise<void> {
    for (const at of ats) {
      await makeSended(ds, userId, { at, ...fields });
    }
  }

  describe('get_usage', () => {
    const usage = (apiKey: string, query: Record<string, unknown> = {}) =>
      get('/api/usage/', apiKey, query);

    it('answers 401 INVALID_CREDENTIALS without an API key, without running', async () => {
      const response = await request(t.url).get('/api/usage/');

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
      expect(response.body.response).toBeNull();
    });

    describe('rule 1: start and end must be YYYY-MM-DD HH:MM:SS', () => {
      it.each([
        ['start', '2024-02-30 10:00:00'],
        ['start', '2024-02-01'],
        ['start', 'yesterday'],
        ['end', '2024-02-01T10:00:00'],
        ['end', '2024-2-01 10:00:00'],
      ])('refuses %s=%j with INVALID_PARAMETER naming it', async (name, value) => {
        const { apiKey } = await makeUser(ds);

        const response = await usage(apiKey, { [name]: value });

        expectInvalid(response, `${name} must be a date of format "YYYY-MM-DD HH:MM:SS".`);
      });

      it('refuses a start given as a list with INVALID_PARAMETER, not a 500', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await request(t.url).get(
          `/api/usage/?api_key=${apiKey}&start[]=2024-01-01%2000:00:00`,
        );

        expectInvalid(response, 'start must be a date of format "YYYY-MM-DD HH:MM:SS".');
      });

      it('refuses a tag given as a list with INVALID_PARAMETER, not a 500', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await request(t.url).get(`/api/usage/?api_key=${apiKey}&tag[]=promo`);

        expectInvalid(response, 'tag must be a string.');
      });

      it('takes an empty start or end as no bound', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(user.id, ['2020-01-01 00:00:00', '2030-01-01 00:00:00'], {
          id_phone: phone.id,
        });

        const response = await usage(apiKey, { start: '', end: '' });

        expectSuccess(response, { total: 2, phones_volumes: { [phone.id]: 2 } });
      });
    });

    describe('rule 2: the count of sent messages per phone of the caller in the period', () => {
      it('counts every status for each phone, and 0 for a phone without messages', async () => {
        const { user, apiKey } = await makeUser(ds);
        const first = await makePhone(ds, user.id);
        const second = await makePhone(ds, user.id);
        const idle = await makePhone(ds, user.id);
        for (const status of ['unknown', 'delivered', 'failed'] as const) {
          await makeSended(ds, user.id, { id_phone: first.id, status });
        }
        await makeSended(ds, user.id, { id_phone: second.id, status: 'failed', error: 'refused' });

        const response = await usage(apiKey);

        expectSuccess(response, {
          total: 4,
          phones_volumes: { [first.id]: 3, [second.id]: 1, [idle.id]: 0 },
        });
      });

      it('includes both bounds to the second and leaves out what is outside them', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2024-02-01 09:59:59',
            '2024-02-01 10:00:00',
            '2024-02-15 12:00:00',
            '2024-02-28 18:00:00',
            '2024-02-28 18:00:01',
          ],
          { id_phone: phone.id },
        );
        const volume = async (query: Record<string, string>) =>
          ((await usage(apiKey, query)).body.response as Row).total;

        expect(await volume({ start: '2024-02-01 10:00:00', end: '2024-02-28 18:00:00' })).toBe(3);
        expect(await volume({ start: '2024-02-01 10:00:00' })).toBe(4);
        expect(await volume({ end: '2024-02-28 18:00:00' })).toBe(4);
        expect(await volume({ start: '2024-02-15 12:00:00', end: '2024-02-15 12:00:00' })).toBe(1);
        expect(await volume({ start: '2024-02-28 18:00:00', end: '2024-02-01 10:00:00' })).toBe(0);
      });

      it.each([
        ['camp%', ['campaign-1', 'campaign-2', 'camp']],
        ['CAMP%', ['campaign-1', 'campaign-2', 'camp']],
        ['_ag', ['tag', 'bag']],
        ['alerts', ['alerts']],
        ['%-2', ['campaign-2', 'alerts-2']],
        ['back\\', ['back\\']],
        ['100\\%', ['100%']],
        ['nothing%', []],
      ])('counts only messages whose tag is LIKE %j', async (tag, matching) => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        const tags = [
          'campaign-1',
          'campaign-2',
          'camp',
          'my-camp',
          'tag',
          'bag',
          'stag',
          'alerts',
          'alerts-2',
          '100%',
          '1000',
          'back\\',
          null,
        ];
        for (const value of tags) {
          await makeSended(ds, user.id, { id_phone: phone.id, tag: value });
        }

        const response = await usage(apiKey, { tag });

        expectSuccess(response, {
          total: matching.length,
          phones_volumes: { [phone.id]: matching.length },
        });
      });

      it('counts tagged and untagged messages alike when tag is empty', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await makeSended(ds, user.id, { id_phone: phone.id, tag: 'promo' });
        await makeSended(ds, user.id, { id_phone: phone.id, tag: null });

        const response = await usage(apiKey, { tag: '' });

        expectSuccess(response, { total: 2, phones_volumes: { [phone.id]: 2 } });
      });

      it('never counts another user’s messages, even through the caller’s phone id', async () => {
        const { user, apiKey } = await makeUser(ds);
        const { user: other } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        const othersPhone = await makePhone(ds, other.id);
        await makeSended(ds, user.id, { id_phone: phone.id });
        await makeSended(ds, other.id, { id_phone: othersPhone.id });
        await makeSended(ds, other.id, { id_phone: phone.id });

        const response = await usage(apiKey);

        expectSuccess(response, { total: 1, phones_volumes: { [phone.id]: 1 } });
      });

      it('does not count messages of deleted phones (id_phone null)', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await makeSended(ds, user.id, { id_phone: phone.id });
        await makeSended(ds, user.id, { id_phone: null });

        const response = await usage(apiKey);

        expectSuccess(response, { total: 1, phones_volumes: { [phone.id]: 1 } });
      });
    });

    describe('rule 3: the usage object', () => {
      it('answers total 0 and an empty object for a user without phones', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makeSended(ds, user.id, { id_phone: null });

        const response = await usage(apiKey);

        expectSuccess(response, { total: 0, phones_volumes: {} });
        expect(Object.keys(response.body.response as Row)).toEqual(['total', 'phones_volumes']);
      });
    });
  });

  describe('get_sms_status_stats', () => {
    const stats = (apiKey: string, query: Record<string, unknown> = {}) =>
      get('/api/stats/sms-status/', apiKey, query);
    const FEBRUARY = { start: '2024-02-01 00:00:00', end: '2024-02-29 23:59:59' };

    it('answers 401 INVALID_CREDENTIALS without an API key, without running', async () => {
      const response = await request(t.url).get('/api/stats/sms-status/').query(FEBRUARY);

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
    });

    describe('rule 1: start and end are required', () => {
      it.each([
        [{}, 'start and end are required.'],
        [{ end: FEBRUARY.end }, 'start is required.'],
        [{ start: FEBRUARY.start }, 'end is required.'],
        [{ start: '', end: FEBRUARY.end }, 'start is required.'],
        [{ start: 'not a date' }, 'end is required.'],
      ])('refuses %j with MISSING_PARAMETER naming what is missing', async (query, detail) => {
        const { apiKey } = await makeUser(ds);

        const response = await stats(apiKey, query);

        expectMissing(response, detail);
      });
    });

    describe('rule 2: start and end must be dates', () => {
      it.each([
        ['start', '2024-02-30 10:00:00'],
        ['start', '2024-02-30'],
        ['start', 'yesterday'],
        ['end', '2024-02-29 24:00:00'],
        ['end', '2024-02-29T10:00:00'],
      ])('refuses %s=%j with INVALID_PARAMETER naming it', async (name, value) => {
        const { apiKey } = await makeUser(ds);

        const response = await stats(apiKey, { ...FEBRUARY, [name]: value });

        expectInvalid(
          response,
          `${name} must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".`,
        );
      });

      it('refuses an end before the start with INVALID_PARAMETER', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await stats(apiKey, { start: '2024-02-02', end: '2024-02-01 23:59:59' });

        expectInvalid(response, 'end must not be before start.');
      });

      it('includes both bounds to the second', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2024-02-01 09:59:59',
            '2024-02-01 10:00:00',
            '2024-02-03 18:00:00',
            '2024-02-03 18:00:01',
          ],
          { id_phone: phone.id },
        );

        const response = await stats(apiKey, {
          start: '2024-02-01 10:00:00',
          end: '2024-02-03 18:00:00',
        });

        expectSuccess(response, [
          { at_ymd: '2024-02-01', id_phone: phone.id, status: 'unknown', nb: 1 },
          { at_ymd: '2024-02-03', id_phone: phone.id, status: 'unknown', nb: 1 },
        ]);
      });

      it('takes a date-only end as the whole of that day: start=end=2026-11-27 counts that day', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2026-11-26 23:59:59',
            '2026-11-27 00:00:00',
            '2026-11-27 12:00:00',
            '2026-11-27 23:59:59',
            '2026-11-28 00:00:00',
          ],
          { id_phone: phone.id },
        );

        const response = await stats(apiKey, { start: '2026-11-27', end: '2026-11-27' });

        expectSuccess(response, [
          { at_ymd: '2026-11-27', id_phone: phone.id, status: 'unknown', nb: 3 },
        ]);
      });

      it('keeps a full datetime end as that instant, and a date-only start as the day’s first second', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(user.id, ['2024-02-01 00:00:00', '2024-02-02 00:00:00', '2024-02-02 00:00:01'], {
          id_phone: phone.id,
        });

        const response = await stats(apiKey, { start: '2024-02-01', end: '2024-02-02 00:00:00' });

        expectSuccess(response, [
          { at_ymd: '2024-02-01', id_phone: phone.id, status: 'unknown', nb: 1 },
          { at_ymd: '2024-02-02', id_phone: phone.id, status: 'unknown', nb: 1 },
        ]);
      });

      it('takes an end on the start’s day as after it, however late the start', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(user.id, ['2024-02-02 18:00:00', '2024-02-02 23:59:59'], { id_phone: phone.id });

        const response = await stats(apiKey, { start: '2024-02-02 18:00:01', end: '2024-02-02' });

        expectSuccess(response, [
          { at_ymd: '2024-02-02', id_phone: phone.id, status: 'unknown', nb: 1 },
        ]);
      });
    });

    describe('rule 3: id_phone must be one of the caller’s phones', () => {
      it.each(['abc', '-1', '1.5', '99999999999'])(
        'refuses id_phone=%j with INVALID_PARAMETER',
        async (value) => {
          const { apiKey } = await makeUser(ds);

          const response = await stats(apiKey, { ...FEBRUARY, id_phone: value });

          expectInvalid(response, `id_phone must be a non-negative integer, got "${value}".`);
        },
      );

      it('refuses another user’s phone exactly as a phone that does not exist', async () => {
        const { apiKey } = await makeUser(ds);
        const { user: other } = await makeUser(ds);
        const othersPhone = await makePhone(ds, other.id);
        await makeSended(ds, other.id, { id_phone: othersPhone.id, at: '2024-02-10 10:00:00' });
        const missingId = othersPhone.id + 1000;

        const others = await stats(apiKey, { ...FEBRUARY, id_phone: othersPhone.id });
        const missing = await stats(apiKey, { ...FEBRUARY, id_phone: missingId });

        expectInvalid(
          others,
          `id_phone must be the id of one of your phones, got ${othersPhone.id}.`,
        );
        expectInvalid(missing, `id_phone must be the id of one of your phones, got ${missingId}.`);
        expect(others.status).toBe(missing.status);
        expect(others.body.message.replace(String(othersPhone.id), 'N')).toBe(
          missing.body.message.replace(String(missingId), 'N'),
        );
      });

      it('counts only that phone when id_phone is given; empty means every phone', async () => {
        const { user, apiKey } = await makeUser(ds);
        const first = await makePhone(ds, user.id);
        const second = await makePhone(ds, user.id);
        await makeSended(ds, user.id, { id_phone: first.id, at: '2024-02-10 10:00:00' });
        await makeSended(ds, user.id, { id_phone: second.id, at: '2024-02-10 10:00:00' });

        const one = await stats(apiKey, { ...FEBRUARY, id_phone: second.id });
        const all = await stats(apiKey, { ...FEBRUARY, id_phone: '' });

        expectSuccess(one, [
          { at_ymd: '2024-02-10', id_phone: second.id, status: 'unknown', nb: 1 },
        ]);
        expectSuccess(all, [
          { at_ymd: '2024-02-10', id_phone: first.id, status: 'unknown', nb: 1 },
          { at_ymd: '2024-02-10', id_phone: second.id, status: 'unknown', nb: 1 },
        ]);
      });
    });

    describe('rule 4: counts per day, phone and status', () => {
      it('orders rows by day, phone, then unknown, delivered, failed, with only non-zero groups', async () => {
        const { user, apiKey } = await makeUser(ds);
        const first = await makePhone(ds, user.id);
        const second = await makePhone(ds, user.id);
        await sent(user.id, ['2024-02-11 08:00:00'], { id_phone: first.id, status: 'failed' });
        await sent(user.id, ['2024-02-10 23:00:00'], { id_phone: second.id, status: 'delivered' });
        await sent(user.id, ['2024-02-10 09:00:00', '2024-02-10 22:00:00'], {
          id_phone: first.id,
          status: 'failed',
        });
        await sent(user.id, ['2024-02-10 10:00:00'], { id_phone: first.id, status: 'delivered' });
        await sent(user.id, ['2024-02-10 00:00:00', '2024-02-10 23:59:59'], {
          id_phone: first.id,
          status: 'unknown',
        });

        const response = await stats(apiKey, FEBRUARY);

        expectSuccess(response, [
          { at_ymd: '2024-02-10', id_phone: first.id, status: 'unknown', nb: 2 },
          { at_ymd: '2024-02-10', id_phone: first.id, status: 'delivered', nb: 1 },
          { at_ymd: '2024-02-10', id_phone: first.id, status: 'failed', nb: 2 },
          { at_ymd: '2024-02-10', id_phone: second.id, status: 'delivered', nb: 1 },
          { at_ymd: '2024-02-11', id_phone: first.id, status: 'failed', nb: 1 },
        ]);
        expect(Object.keys((response.body.response as Row[])[0])).toEqual([
          'at_ymd',
          'id_phone',
          'status',
          'nb',
        ]);
      });

      it('leaves out other users’ messages and messages of deleted phones', async () => {
        const { user, apiKey } = await makeUser(ds);
        const { user: other } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        const othersPhone = await makePhone(ds, other.id);
        await makeSended(ds, user.id, { id_phone: phone.id, at: '2024-02-10 10:00:00' });
        await makeSended(ds, user.id, { id_phone: null, at: '2024-02-10 10:00:00' });
        await makeSended(ds, other.id, { id_phone: othersPhone.id, at: '2024-02-10 10:00:00' });
        await makeSended(ds, other.id, { id_phone: phone.id, at: '2024-02-10 10:00:00' });

        const response = await stats(apiKey, FEBRUARY);

        expectSuccess(response, [
          { at_ymd: '2024-02-10', id_phone: phone.id, status: 'unknown', nb: 1 },
        ]);
      });

      it('answers an empty list when nothing was sent in the period', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await makeSended(ds, user.id, { id_phone: phone.id, at: '2024-03-01 00:00:00' });

        expectSuccess(await stats(apiKey, FEBRUARY), []);
      });
    });
  });

  describe('get_invalid_numbers', () => {
    const THRESHOLDS = { volume: 0, percent_failed: 0, percent_unknown: 0 };
    const invalid = (apiKey: string, query: Record<string, unknown> = {}) =>
      get('/api/invalid_number/', apiKey, query);

    /** `total` messages to `destination`: `failed` failed, `unknown` unknown, the rest delivered. */
    async function toDestination(
      userId: number,
      destination: string,
      total: number,
      failed: number,
      unknown = 0,
    ): Promise<void> {
      for (let index = 0; index < total; index += 1) {
        const status =
          index < failed ? 'failed' : index < failed + unknown ? 'unknown' : 'delivered';
        await makeSended(ds, userId, { destination, status });
      }
    }

    it('answers 401 INVALID_CREDENTIALS without an API key, on both path forms', async () => {
      for (const path of ['/api/invalid_number/', '/api/invalid_number/1/']) {
        const response = await request(t.url).get(path).query(THRESHOLDS);

        expect(response.status).toBe(401);
        expect(response.body.error).toBe(INVALID_CREDENTIALS);
      }
    });

    describe('rule 1: volume, percent_failed and percent_unknown are required', () => {
      it.each([
        [{}, 'volume, percent_failed and percent_unknown are required.'],
        [{ volume: 1 }, 'percent_failed and percent_unknown are required.'],
        [{ volume: 1, percent_failed: 10 }, 'percent_unknown is required.'],
        [{ percent_failed: 10, percent_unknown: '' }, 'volume and percent_unknown are required.'],
      ])('refuses %j with MISSING_PARAMETER naming the absent ones', async (query, detail) => {
        const { apiKey } = await makeUser(ds);

        const response = await invalid(apiKey, query);

        expectMissing(response, detail);
      });

      it.each([
        ['volume', 'abc', 'volume must be a non-negative integer, got "abc".'],
        ['volume', '-1', 'volume must be a non-negative integer, got "-1".'],
        ['volume', '1.5', 'volume must be a non-negative integer, got "1.5".'],
        ['percent_failed', '101', 'percent_failed must be a number from 0 to 100, got "101".'],
        ['percent_failed', '-5', 'percent_failed must be a number from 0 to 100, got "-5".'],
        ['percent_unknown', 'abc', 'percent_unknown must be a number from 0 to 100, got "abc".'],
        [
          'percent_unknown',
          '100.001',
          'percent_unknown must be a number from 0 to 100, got "100.001".',
        ],
        ['page', '-1', 'page must be a non-negative integer, got "-1".'],
        ['page', 'x', 'page must be a non-negative integer, got "x".'],
      ])('refuses %s=%j with INVALID_PARAMETER naming it', async (name, value, detail) => {
        const { apiKey } = await makeUser(ds);

        const response = await invalid(apiKey, { ...THRESHOLDS, [name]: value });

        expectInvalid(response, detail);
      });

      it('refuses a page in the path that is not a non-negative integer', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await get('/api/invalid_number/abc/', apiKey, THRESHOLDS);

        expectInvalid(response, 'page must be a non-negative integer, got "abc".');
      });

      it('refuses thresholds given as lists with INVALID_PARAMETER, not a 500', async () => {
        const { apiKey } = await makeUser(ds);

        const response = await request(t.url).get(
          `/api/invalid_number/?api_key=${apiKey}&volume=1&percent_failed[]=1&percent_unknown=0`,
        );

        expectInvalid(response, 'percent_failed must be a number from 0 to 100, got a list.');
      });

      it('accepts decimal percentages and the bounds 0 and 100', async () => {
        const { user, apiKey } = await makeUser(ds);
        await toDestination(user.id, '+33600000001', 8, 8);

        const response = await invalid(apiKey, {
          volume: 0,
          percent_failed: '100',
          percent_unknown: '0.0',
        });
        const decimal = await invalid(apiKey, {
          volume: 0,
          percent_failed: '12.5',
          percent_unknown: 0,
        });

        const row = {
          destination: '+33600000001',
          total_sms_sent: 8,
          failed_percentage: 100,
          unknown_percentage: 0,
        };
        expectSuccess(response, [row]);
        expectSuccess(decimal, [row]);
      });
    });

    describe('rule 2: the caller’s numbers that reach every threshold', () => {
      it('lists each destination with its total and its percentages rounded to two decimals', async () => {
        const { user, apiKey } = await makeUser(ds);
        await toDestination(user.id, '+33600000003', 3, 1, 2);
        await toDestination(user.id, '+33600000032', 32, 1, 0);
        await toDestination(user.id, '+33600000008', 8, 1, 1);

        const response = await invalid(apiKey, THRESHOLDS);

        expectSuccess(response, [
          {
            destination: '+33600000003',
            total_sms_sent: 3,
            failed_percentage: 33.33,
            unknown_percentage: 66.67,
          },
          {
            destination: '+33600000008',
            total_sms_sent: 8,
            failed_percentage: 12.5,
            unknown_percentage: 12.5,
          },
          {
            destination: '+33600000032',
            total_sms_sent: 32,
            failed_percentage: 3.13,
            unknown_percentage: 0,
          },
        ]);
        expect(Object.keys((response.body.response as Row[])[0])).toEqual([
          'destination',
          'total_sms_sent',
          'failed_percentage',
          'unknown_percentage',
        ]);
      });

      it('keeps numbers with at least `volume` messages', async () => {
        const { user, apiKey } = await makeUser(ds);
        await toDestination(user.id, '+33600000001', 2, 0);
        await toDestination(user.id, '+33600000002', 3, 0);

        const destinations = async (volume: number) =>
          ((await invalid(apiKey, { ...THRESHOLDS, volume })).body.response as Row[]).map(
            (row) => row.destination,
          );

        expect(await destinations(0)).toEqual(['+33600000001', '+33600000002']);
        expect(await destinations(3)).toEqual(['+33600000002']);
        expect(await destinations(4)).toEqual([]);
      });

      it('compares each percentage threshold with the rounded percentage, as displayed', async () => {
        const { user, apiKey } = await makeUser(ds);
        await toDestination(user.id, '+33600000001', 3, 2, 1); // 66.67 % failed, 33.33 % unknown
        await toDestination(user.id, '+33600000002', 3, 1, 2); // 33.33 % failed, 66.67 % unknown

        const destinations = async (percentFailed: string, percentUnknown: string) =>
          (
            (
              await invalid(apiKey, {
                volume: 0,
                percent_failed: percentFailed,
                percent_unknown: percentUnknown,
              })
            ).body.response as Row[]
          ).map((row) => row.destination);

        expect(await destinations('66.67', '0')).toEqual(['+33600000001']);
        expect(await destinations('66.666', '0')).toEqual(['+33600000001']);
        expect(await destinations('66.671', '0')).toEqual([]);
        expect(await destinations('0', '66.67')).toEqual(['+33600000002']);
        expect(await destinations('33.33', '33.33')).toEqual(['+33600000001', '+33600000002']);
        expect(await destinations('50', '50')).toEqual([]);
      });

      it('requires every criterion at once; 0 disables a criterion', async () => {
        const { user, apiKey } = await makeUser(ds);
        await toDestination(user.id, '+33600000001', 10, 5, 5);
        await toDestination(user.id, '+33600000002', 10, 5, 0);
        await toDestination(user.id, '+33600000003', 2, 2, 0);

        const destinations = async (query: Record<string, number>) =>
          ((await invalid(apiKey, query)).body.response as Row[]).map((row) => row.destination);

        expect(await destinations({ volume: 5, percent_failed: 50, percent_unknown: 50 })).toEqual([
          '+33600000001',
        ]);
        expect(await destinations({ volume: 5, percent_failed: 50, percent_unknown: 0 })).toEqual([
          '+33600000001',
          '+33600000002',
        ]);
        expect(await destinations({ volume: 0, percent_failed: 50, percent_unknown: 0 })).toEqual([
          '+33600000001',
          '+33600000002',
          '+33600000003',
        ]);
      });

      it('counts only the caller’s messages, whoever else wrote to the same number', async () => {
        const { user, apiKey } = await makeUser(ds);
        const { user: other } = await makeUser(ds);
        await toDestination(user.id, '+33600000001', 2, 0);
        await toDestination(other.id, '+33600000001', 2, 2);
        await toDestination(other.id, '+33600000002', 5, 5);

        const response = await invalid(apiKey, THRESHOLDS);

        expectSuccess(response, [
          {
            destination: '+33600000001',
            total_sms_sent: 2,
            failed_percentage: 0,
            unknown_percentage: 0,
          },
        ]);
      });
    });

    describe('rule 3: 25 per page, next and prev keeping the parameters and the key', () => {
      /** 26 destinations, inserted out of order, each with one failed message. */
      async function twentySixNumbers(userId: number): Promise<string[]> {
        const destinations = Array.from(
          { length: 26 },
          (_, index) => `+336000001${String(index).padStart(2, '0')}`,
        );
        for (const destination of [...destinations].reverse()) {
          await makeSended(ds, userId, { destination, status: 'failed' });
        }
        return destinations;
      }

      const follow = (link: string) => {
        const url = new URL(link);
        expect(url.origin).toBe(t.url);
        return request(t.url).get(url.pathname + url.search);
      };

      const destinationsOf = (response: Response) =>
        (response.body.response as Row[]).map((row) => row.destination);

      it('pages by 25 in destination order, with links followed over HTTP', async () => {
        const { user, apiKey } = await makeUser(ds);
        const destinations = await twentySixNumbers(user.id);
        const query = { volume: '1', percent_failed: '12.5', percent_unknown: '0' };
        const linkTo = (page: number) =>
          `${t.url}/api/invalid_number/${page}/?volume=1&percent_failed=12.5&percent_unknown=0` +
          `&api_key=${apiKey}`;

        const first = await invalid(apiKey, query);

        expect(first.status).toBe(200);
        expect(destinationsOf(first)).toEqual(destinations.slice(0, 25));
        expect(first.body.next).toBe(linkTo(1));
        expect(first.body.prev).toBeNull();

        const second = await follow(first.body.next as string);

        expect(second.status).toBe(200);
        expect(destinationsOf(second)).toEqual(destinations.slice(25));
        expect(second.body.next).toBeNull();
        expect(second.body.prev).toBe(linkTo(0));

        const back = await follow(second.body.prev as string);

        expect(back.body).toEqual(first.body);
      });

      it('puts the key presented in the X-Api-Key header into the links', async () => {
        const { user, apiKey } = await makeUser(ds);
        await twentySixNumbers(user.id);

        const response = await api(t, apiKey).get('/api/invalid_number/1/').query(THRESHOLDS);

        expect(response.status).toBe(200);
        expect(response.body.prev).toBe(
          `${t.url}/api/invalid_number/0/?volume=0&percent_failed=0&percent_unknown=0&api_key=${apiKey}`,
        );
        const back = await follow(response.body.prev as string);
        expect(back.status).toBe(200);
        expect(destinationsOf(back)).toHaveLength(25);
      });

      it('reads the page from the query string too, the path winning over it', async () => {
        const { user, apiKey } = await makeUser(ds);
        const destinations = await twentySixNumbers(user.id);

        const byQuery = await invalid(apiKey, { ...THRESHOLDS, page: 1 });
        const byPath = await get('/api/invalid_number/0/', apiKey, { ...THRESHOLDS, page: 1 });

        expect(destinationsOf(byQuery)).toEqual(destinations.slice(25));
        expect(destinationsOf(byPath)).toEqual(destinations.slice(0, 25));
      });

      it('gives a full last page a next link to an empty page, which links back', async () => {
        const { user, apiKey } = await makeUser(ds);
        for (let index = 0; index < 25; index += 1) {
          await makeSended(ds, user.id, {
            destination: `+3360000020${String(index).padStart(2, '0')}`,
          });
        }

        const full = await invalid(apiKey, THRESHOLDS);
        const empty = await follow(full.body.next as string);

        expect(destinationsOf(full)).toHaveLength(25);
        expect(empty.status).toBe(200);
        expect(empty.body.response).toEqual([]);
        expect(empty.body.next).toBeNull();
        expect(empty.body.prev).toBe(
          `${t.url}/api/invalid_number/0/?volume=0&percent_failed=0&percent_unknown=0&api_key=${apiKey}`,
        );
      });

      it('answers a page far past the end with an empty list and a prev link', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makeSended(ds, user.id, { destination: '+33600000001' });

        const response = await get('/api/invalid_number/2147483647/', apiKey, THRESHOLDS);

        expect(response.status).toBe(200);
        expect(response.body.response).toEqual([]);
        expect(response.body.next).toBeNull();
        expect(response.body.prev).toBe(
          `${t.url}/api/invalid_number/2147483646/?volume=0&percent_failed=0&percent_unknown=0&api_key=${apiKey}`,
        );
      });

      it('has neither link on a short first page', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makeSended(ds, user.id, { destination: '+33600000001' });

        const response = await invalid(apiKey, THRESHOLDS);

        expect(response.body.next).toBeNull();
        expect(response.body.prev).toBeNull();
      });
    });
  });

  describe('days in the service time zone', () => {
    /** Runs `body` against an app started with TZ=`zone` on the same database. */
    function inZone(zone: string, body: (app: () => TestApp) => void): void {
      describe(`TZ=${zone}`, () => {
        let zoned: TestApp;
        beforeAll(async () => {
          zoned = await startApp(database(), { TZ: zone });
        });
        afterAll(async () => {
          await zoned.close();
        });
        body(() => zoned);
      });
    }

    const days = (response: Response) => {
      expect(response.status).toBe(200);
      return (response.body.response as Row[]).map((row) => [row.at_ymd, row.nb]);
    };

    inZone('Europe/Paris', (app) => {
      it('groups by Paris days across the spring and autumn DST changes', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2024-03-30 22:59:59', // 23:59:59 +01:00 on the 30th
            '2024-03-30 23:00:00', // 00:00 on the 31st, the day clocks go forward
            '2024-03-31 21:59:59', // 23:59:59 +02:00 on the 31st
            '2024-03-31 22:00:00', // 1st of April
            '2024-10-26 21:59:59', // 23:59:59 +02:00 on the 26th
            '2024-10-26 22:00:00', // the 27th, the day clocks go back
            '2024-10-27 22:59:59', // 23:59:59 +01:00, still the 27th
            '2024-10-27 23:00:00', // the 28th
          ],
          { id_phone: phone.id },
        );

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '2024-03-30', end: '2024-10-28 00:00:00' });

        expect(days(response)).toEqual([
          ['2024-03-30', 1],
          ['2024-03-31', 2],
          ['2024-04-01', 1],
          ['2024-10-26', 1],
          ['2024-10-27', 2],
          ['2024-10-28', 1],
        ]);
      });

      it('takes a date-only end as the whole Paris day, 23 hours long when clocks go forward', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2024-03-30 22:59:59', // 23:59:59 +01:00 on the 30th
            '2024-03-30 23:00:00', // the 31st's first second
            '2024-03-31 21:59:59', // its last, 23:59:59 +02:00
            '2024-03-31 22:00:00', // 1st of April
          ],
          { id_phone: phone.id },
        );

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '2024-03-31', end: '2024-03-31' });

        expect(days(response)).toEqual([['2024-03-31', 2]]);
      });

      it('answers the widest period, from local mean time to year 9999, with Paris days', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(user.id, ['2024-03-30 22:59:59', '2024-03-30 23:00:00'], { id_phone: phone.id });

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '0001-01-01', end: '9999-12-31 23:59:59' });

        expect(days(response)).toEqual([
          ['2024-03-30', 1],
          ['2024-03-31', 1],
        ]);
      });

      it('reads start and end as Paris wall times, for stats and usage', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        // 2024-07-01 00:00 in Paris is 2024-06-30 22:00 UTC.
        await sent(user.id, ['2024-06-30 21:59:59', '2024-06-30 22:00:00'], { id_phone: phone.id });

        const stats = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '2024-07-01', end: '2024-07-01 23:59:59' });
        const usage = await request(app().url)
          .get('/api/usage/')
          .query({ api_key: apiKey, start: '2024-07-01 00:00:00' });

        expect(days(stats)).toEqual([['2024-07-01', 1]]);
        expect(usage.body.response).toEqual({ total: 1, phones_volumes: { [phone.id]: 1 } });
      });
    });

    inZone('Asia/Kolkata', (app) => {
      it('groups by Kolkata days, which start at 18:30 UTC', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(
          user.id,
          [
            '2024-04-30 18:30:00', // 00:00 on May 1st
            '2024-05-01 18:00:00', // 23:30 on May 1st, same UTC hour as the next one
            '2024-05-01 18:29:59', // 23:59:59 on May 1st
            '2024-05-01 18:30:00', // 00:00 on May 2nd
            '2024-05-01 18:59:59', // 00:29:59 on May 2nd
          ],
          { id_phone: phone.id },
        );

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '2024-05-01', end: '2024-05-02 23:59:59' });

        expect(days(response)).toEqual([
          ['2024-05-01', 3],
          ['2024-05-02', 2],
        ]);
      });
    });

    inZone('Asia/Kathmandu', (app) => {
      it('groups by Kathmandu days, which start at 18:15 UTC', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        await sent(user.id, ['2024-05-01 18:00:00', '2024-05-01 18:14:59', '2024-05-01 18:15:00'], {
          id_phone: phone.id,
        });

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '2024-05-01', end: '2024-05-02 23:59:59' });

        expect(days(response)).toEqual([
          ['2024-05-01', 2],
          ['2024-05-02', 1],
        ]);
      });
    });

    inZone('America/Guyana', (app) => {
      it('stays exact when the offset inside the period differs from both ends (−03:45 in 1950)', async () => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        // 1950-06-02 00:00 in Georgetown was 03:45 UTC.
        await sent(user.id, ['1950-06-02 03:44:59', '1950-06-02 03:45:00'], {
          id_phone: phone.id,
        });

        const response = await request(app().url)
          .get('/api/stats/sms-status/')
          .query({ api_key: apiKey, start: '1914-06-01', end: '1976-06-01' });

        expect(days(response)).toEqual([
          ['1950-06-01', 1],
          ['1950-06-02', 1],
        ]);
      });
    });
  });
});
