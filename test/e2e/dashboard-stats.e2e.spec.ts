import { DateTime } from 'luxon';
import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { countExisting } from '../../src/database/migrations/1765200000000-DashboardStatistics';
import { makePhone, makeReceived, makeScheduled, makeSended, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * get_daily_stats, get_queue_stats and get_reliability_stats (docs/api.md#dashboard-statistics)
 * over real HTTP against the real app, on every engine. The daily counts come from the
 * `message_count` counters, which every write keeps: after real sends, receipts, receptions and
 * deletions through the app, the counters must equal a recount of the rows, and the days must
 * agree with get_sms_status_stats and with the received rows counted by their local day.
 */

type Row = Record<string, unknown>;
type Counts = { delivered: number; failed: number; unknown: number; received: number };

const INVALID_CREDENTIALS = 1;
const INVALID_PARAMETER = 2;
const MISSING_PARAMETER = 4;
const INVALID_PREFIX = 'You have specified an invalid parameter : ';
const MISSING_PREFIX = 'One require parameter is missing : ';
/** Half-hour offset with DST: local midnights are never on a UTC hour. */
const ZONE = 'America/St_Johns';

function expectError(response: Response, status: number, error: number, message: string): void {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ error, message, response: null, next: null, prev: null });
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

const zeros = (): Counts => ({ delivered: 0, failed: 0, unknown: 0, received: 0 });

/** `at` (UTC `YYYY-MM-DD HH:MM:SS`) as its UTC day and its UTC quarter-hour. */
function bucketsOf(at: string): string[] {
  const quarter = Math.floor(Number(at.slice(14, 16)) / 15) * 15;
  return [at.slice(0, 10), `${at.slice(0, 14)}${quarter < 10 ? '0' : ''}${quarter}`];
}

/** The user's non-zero counters, sorted. */
async function counters(ds: DataSource, userId: number): Promise<string[]> {
  const rows = await ds.query<Row[]>(
    'SELECT bucket, id_phone, kind, nb FROM message_count WHERE id_user = ? AND nb <> 0',
    [userId],
  );
  return rows
    .map((row) => [row.bucket, row.id_phone, row.kind, row.nb].map(String).join('|'))
    .sort();
}

/** The same counters recounted from the user's rows that have a phone. */
async function recount(ds: DataSource, userId: number): Promise<string[]> {
  const sended = await ds.query<Row[]>(
    'SELECT id_phone, at, status AS kind FROM sended WHERE id_user = ? AND id_phone IS NOT NULL',
    [userId],
  );
  const received = await ds.query<Row[]>(
    "SELECT id_phone, at, 'received' AS kind FROM received WHERE id_user = ? AND id_phone IS NOT NULL",
    [userId],
  );
  const counts = new Map<string, number>();
  for (const row of [...sended, ...received]) {
    for (const bucket of bucketsOf(String(row.at))) {
      const key = [bucket, String(row.id_phone), String(row.kind)].join('|');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].map(([key, nb]) => `${key}|${nb}`).sort();
}

describeEachDatabase('dashboard statistics kept by the dispatch and the callbacks', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20', TZ: ZONE });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, apiKey: string | undefined, query: Record<string, unknown> = {}) =>
    request(t.url)
      .get(path)
      .query(apiKey === undefined ? query : { api_key: apiKey, ...query });

  const ok = async <T>(path: string, apiKey: string, query: Record<string, unknown> = {}) => {
    const response = await get(path, apiKey, query);
    expect(response.status).toBe(200);
    return (response.body as { response: T }).response;
  };

  describe('get_daily_stats: counters kept exact by every write', () => {
    it('equal a recount after sends, receipts, receptions and deletions, and agree with get_sms_status_stats', async () => {
      const { user, apiKey } = await makeUser(ds);
      const unknown = await makePhone(ds, user.id);
      const failing = await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });
      const doomed = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
      const numbers = (from: number, count: number) =>
        Array.from(
          { length: count },
          (_, index) => `+336111${String(from + index).padStart(5, '0')}`,
        );
      for (const [phone, count, from] of [
        [unknown, 12, 0],
        [failing, 3, 100],
        [doomed, 2, 200],
      ] as const) {
        const response = await api(t, apiKey, 'query')
          .post('/api/scheduled/')
          .send({ text: 'Hello', id_phone: phone.id, numbers: numbers(from, count) });
        expect(response.status).toBe(201);
      }
      await waitFor(async () => {
        const [row] = await ds.query<Row[]>('SELECT COUNT(*) AS n FROM sended WHERE id_user = ?', [
          user.id,
        ]);
        return Number(row.n) === 17;
      }, '17 sent entries');

      // Receipts: some delivered, some failed, one told twice.
      const sent = await ds.query<Row[]>(
        'SELECT id, uid FROM sended WHERE id_user = ? AND id_phone = ? ORDER BY id',
        [user.id, unknown.id],
      );
      const receipt = (uid: unknown, status: string) =>
        api(t, apiKey, 'query').get('/callback/status/test/', { uid: String(uid), status });
      for (const [index, status] of [
        [0, 'delivered'],
        [1, 'delivered'],
        [1, 'delivered'],
        [2, 'failed'],
        [3, 'delivered'],
        [4, 'failed'],
      ] as const) {
        expect((await receipt(sent[index].uid, status)).status).toBe(200);
      }
      // Receptions around local midnights, over several days.
      for (const at of [
        // 2026-11-19 23:59:59 and 2026-11-20 00:00:00 in St. John's (UTC-03:30).
        '2026-11-20 03:29:59',
        '2026-11-20 03:30:00',
        '2026-11-20 03:44:10',
        '2026-11-21 12:00:00',
        '2026-11-23 03:31:00',
      ]) {
        const response = await api(t, apiKey, 'query')
          .post(`/callback/reception/test/${failing.id}/`)
          .type('form')
          .send({ origin: '+33612345678', text: 'Hi', at });
        expect(response.status).toBe(200);
      }
      // Deletions of a delivered entry, a failed one and a received message.
      const [dropped] = await ds.query<Row[]>(
        "SELECT id FROM received WHERE id_user = ? AND at = '2026-11-21 12:00:00'",
        [user.id],
      );
      for (const path of [
        `/api/sended/${Number(sent[0].id)}/`,
        `/api/sended/${Number(sent[4].id)}/`,
        `/api/received/${Number(dropped.id)}/`,
      ]) {
        expect((await api(t, apiKey, 'query').delete(path)).status).toBe(200);
      }

      expect(await counters(ds, user.id)).toEqual(await recount(ds, user.id));
      const today = DateTime.now().setZone(ZONE).toISODate()!;
      const period = { start: '2026-11-19', end: today };
      const before = await ok<{ days: Row[]; phones: Row[] }>('/api/stats/daily/', apiKey, period);
      expect(before.phones.map((phone) => phone.id_phone)).toEqual([
        unknown.id,
        failing.id,
        doomed.id,
      ]);

      // A deleted phone's messages lose it, and its counters go.
      expect((await api(t, apiKey, 'query').delete(`/api/phone/${doomed.id}/`)).status).toBe(200);
      expect(await counters(ds, user.id)).toEqual(await recount(ds, user.id));

      const daily = await ok<{ days: Array<{ day: string } & Counts>; phones: Row[] }>(
        '/api/stats/daily/',
        apiKey,
        period,
      );
      // Sent: get_sms_status_stats' rows summed per day; received: the rows by their local day.
      const expected = new Map<string, Counts>();
      const dayOf = (day: string) => {
        const counts = expected.get(day) ?? zeros();
        expected.set(day, counts);
        return counts;
      };
      const statuses = await ok<Array<{ at_ymd: string; status: keyof Counts; nb: number }>>(
        '/api/stats/sms-status/',
        apiKey,
        period,
      );
      for (const row of statuses) {
        dayOf(row.at_ymd)[row.status] += row.nb;
      }
      const received = await ds.query<Row[]>(
        'SELECT at FROM received WHERE id_user = ? AND id_phone IS NOT NULL',
        [user.id],
      );
      for (const { at } of received) {
        dayOf(DateTime.fromSQL(String(at), { zone: 'utc' }).setZone(ZONE).toISODate()!).received +=
          1;
      }
      const days: string[] = [];
      for (
        let day = DateTime.fromISO(period.start, { zone: ZONE });
        day.toISODate()! <= today;
        day = day.plus({ days: 1 })
      ) {
        days.push(day.toISODate()!);
      }

      expect(daily.days).toEqual(days.map((day) => ({ day, ...(expected.get(day) ?? zeros()) })));
      expect(daily.phones).toEqual([
        { id_phone: unknown.id, delivered: 2, failed: 1, unknown: 7, received: 0 },
        { id_phone: failing.id, delivered: 0, failed: 3, unknown: 0, received: 4 },
      ]);
      // On either side of the local midnights, the one of the 21st deleted.
      expect(daily.days.slice(0, 5).map((day) => day.received)).toEqual([1, 2, 0, 0, 1]);
    });

    it('counts one phone when id_phone is given, and every day of the period with zeros', async () => {
      const { user, apiKey } = await makeUser(ds);
      const first = await makePhone(ds, user.id);
      const second = await makePhone(ds, user.id);
      for (const phone of [first, second]) {
        await api(t, apiKey, 'query')
          .post(`/callback/reception/test/${phone.id}/`)
          .type('form')
          .send({ origin: '+33612345678', text: 'Hi', at: '2026-03-02 12:00:00' });
      }

      const response = await get('/api/stats/daily/', apiKey, {
        start: '2026-03-01 23:00:00',
        end: '2026-03-03 00:00:00',
        id_phone: second.id,
      });

      expectSuccess(response, {
        days: [
          { day: '2026-03-01', ...zeros() },
          { day: '2026-03-02', ...zeros(), received: 1 },
          { day: '2026-03-03', ...zeros() },
        ],
        phones: [{ id_phone: second.id, ...zeros(), received: 1 }],
      });
    });
  });
});

describeEachDatabase('dashboard statistics without a worker', (database) => {
  let t: TestApp;
  let ds: DataSource;

  // No worker: the queue's messages stay where each test puts them.
  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'off', TZ: ZONE });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, apiKey: string | undefined, query: Record<string, unknown> = {}) =>
    request(t.url)
      .get(path)
      .query(apiKey === undefined ? query : { api_key: apiKey, ...query });

  const ok = async <T>(path: string, apiKey: string, query: Record<string, unknown> = {}) => {
    const response = await get(path, apiKey, query);
    expect(response.status).toBe(200);
    return (response.body as { response: T }).response;
  };

  describe('refusals', () => {
    const PERIOD_PATHS = ['/api/stats/daily/', '/api/stats/reliability/'];

    it.each([...PERIOD_PATHS, '/api/stats/queue/'])(
      '%s answers 401 without a key',
      async (path) => {
        const response = await get(path, undefined, { start: '2026-01-01', end: '2026-01-02' });

        expect(response.status).toBe(401);
        expect(response.body.error).toBe(INVALID_CREDENTIALS);
      },
    );

    it.each(PERIOD_PATHS)(
      '%s refuses a missing start or end with MISSING_PARAMETER',
      async (path) => {
        const { apiKey } = await makeUser(ds);

        expectError(
          await get(path, apiKey, {}),
          400,
          MISSING_PARAMETER,
          `${MISSING_PREFIX}start and end are required.`,
        );
        expectError(
          await get(path, apiKey, { start: '2026-01-01' }),
          400,
          MISSING_PARAMETER,
          `${MISSING_PREFIX}end is required.`,
        );
      },
    );

    it.each(PERIOD_PATHS)(
      '%s refuses a bound that is not a date, and an end before start',
      async (path) => {
        const { apiKey } = await makeUser(ds);

        expectError(
          await get(path, apiKey, { start: 'yesterday', end: '2026-01-01' }),
          400,
          INVALID_PARAMETER,
          `${INVALID_PREFIX}start must be a date of format "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD".`,
        );
        expectError(
          await get(path, apiKey, { start: '2026-01-02', end: '2026-01-01 23:59:59' }),
          400,
          INVALID_PARAMETER,
          `${INVALID_PREFIX}end must not be before start.`,
        );
      },
    );

    it('get_daily_stats refuses a period of more than 366 days', async () => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await get('/api/stats/daily/', apiKey, { start: '2024-01-01', end: '2025-01-01' }),
        400,
        INVALID_PARAMETER,
        `${INVALID_PREFIX}the period must hold at most 366 days, from start to end.`,
      );
      expect(
        (await get('/api/stats/daily/', apiKey, { start: '2024-01-01', end: '2024-12-31' })).body
          .response.days,
      ).toHaveLength(366);
    });

    it("get_daily_stats refuses an id_phone that is not one of the caller's phones", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const theirs = await makePhone(ds, other.user.id);
      const period = { start: '2026-01-01', end: '2026-01-02' };

      expectError(
        await get('/api/stats/daily/', apiKey, { ...period, id_phone: theirs.id }),
        400,
        INVALID_PARAMETER,
        `${INVALID_PREFIX}id_phone must be the id of one of your phones, got ${theirs.id}.`,
      );
      expect(
        (await get('/api/stats/daily/', apiKey, { ...period, id_phone: 'x' })).body.error,
      ).toBe(INVALID_PARAMETER);
    });
  });

  describe('the migration', () => {
    it('counts the rows already there', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const other = await makePhone(ds, user.id);
      for (const [at, status, id_phone] of [
        ['2026-01-01 00:14:59', 'delivered', phone.id],
        ['2026-01-01 00:15:00', 'delivered', phone.id],
        ['2026-01-01 00:15:00', 'failed', phone.id],
        ['2026-01-01 23:59:59', 'unknown', other.id],
        ['2026-01-02 10:45:00', 'unknown', null],
      ] as const) {
        await makeSended(ds, user.id, { at, status, id_phone });
      }
      for (const [at, id_phone] of [
        ['2026-01-01 00:30:00', phone.id],
        ['2026-01-01 00:44:59', phone.id],
        ['2026-01-03 12:00:00', null],
      ] as const) {
        await makeReceived(ds, user.id, { at, id_phone });
      }
      // As if the rows had been written before the migration.
      await ds.query('DELETE FROM message_count');

      await countExisting(ds, ds.options.type === 'mysql');

      expect(await counters(ds, user.id)).toEqual(await recount(ds, user.id));
      expect(await counters(ds, user.id)).toHaveLength(9);
    });
  });

  describe('get_queue_stats', () => {
    it('counts the messages due and waiting, to come, and taken by the dispatch', async () => {
      const { user, apiKey } = await makeUser(ds);
      // Each message placed where one count looks, in the states the dispatch writes.
      const past = '2020-01-01 00:00:00';
      const future = '2999-01-01 00:00:00';
      await makeScheduled(ds, user.id, { at: past });
      await makeScheduled(ds, user.id, { at: past });
      await makeScheduled(ds, user.id, { at: future });
      const expanding = await makeScheduled(ds, user.id, { at: past });
      await ds.query("UPDATE scheduled SET expansion_phase = 'numbers' WHERE id = ?", [
        expanding.id,
      ]);
      const outbox = (scheduledId: number, destination: string, state: string) =>
        ds.query(
          'INSERT INTO outbox (id_user, originating_scheduled, destination, text, flash, mms, ' +
            "state, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 'Hi', 0, 0, ?, 0, " +
            "'2020-01-01 00:00:00', '2020-01-01 00:00:00')",
          [user.id, scheduledId, destination, state],
        );
      // The expanding message's first recipients, and a message wholly expanded (deleted).
      await outbox(expanding.id, '+33612345678', 'queued');
      await outbox(expanding.id + 1000, '+33612345678', 'sending');
      await outbox(expanding.id + 1000, '+33612345679', 'queued');
      const other = await makeUser(ds);
      await makeScheduled(ds, other.user.id, { at: future });

      expectSuccess(await get('/api/stats/queue/', apiKey), { due: 2, to_come: 1, sending: 2 });
      expectSuccess(await get('/api/stats/queue/', other.apiKey), {
        due: 0,
        to_come: 1,
        sending: 0,
      });
    });
  });

  describe('get_reliability_stats', () => {
    it("lists the caller's alerts of the period, newest first, at most 100", async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const other = await makeUser(ds);
      const theirs = await makePhone(ds, other.user.id);
      const alert = (
        userId: number,
        phoneId: number,
        type: string,
        at: string,
        figures: [number, number] | null,
      ) =>
        ds.query(
          'INSERT INTO phone_reliability_history (id_user, id_phone, type, total, unreliable, ' +
            'created_at) VALUES (?, ?, ?, ?, ?, ?)',
          [userId, phoneId, type, figures?.[0] ?? null, figures?.[1] ?? null, at],
        );
      // UTC; 2026-01-10 02:00:00 UTC is 2026-01-09 22:30:00 in St. John's.
      await alert(user.id, phone.id, 'failed', '2026-01-10 02:00:00', [40, 9]);
      await alert(user.id, phone.id, 'unknown', '2026-01-12 15:00:00', null);
      // 2026-02-01 00:30:00 in St. John's: after the period.
      await alert(user.id, phone.id, 'failed', '2026-02-01 04:00:00', [3, 3]);
      await alert(other.user.id, theirs.id, 'failed', '2026-01-11 00:00:00', [30, 30]);

      expectSuccess(
        await get('/api/stats/reliability/', apiKey, { start: '2026-01-01', end: '2026-01-31' }),
        [
          {
            id_phone: phone.id,
            type: 'unknown',
            at: '2026-01-12 11:30:00',
            total: null,
            unreliable: null,
            rate: null,
          },
          {
            id_phone: phone.id,
            type: 'failed',
            at: '2026-01-09 22:30:00',
            total: 40,
            unreliable: 9,
            rate: 0.225,
          },
        ],
      );

      for (let minute = 0; minute < 101; minute += 1) {
        await alert(
          user.id,
          phone.id,
          'failed',
          `2026-03-01 10:${String(minute % 60).padStart(2, '0')}:${minute < 60 ? '00' : '30'}`,
          [25, 5],
        );
      }
      const many = await ok<Row[]>('/api/stats/reliability/', apiKey, {
        start: '2026-03-01',
        end: '2026-03-31',
      });
      expect(many).toHaveLength(100);
      const ats = many.map((row) => String(row.at));
      expect(ats).toEqual([...ats].sort().reverse());
      expect(ats).not.toContain('2026-03-01 06:30:00');
    });
  });
});
