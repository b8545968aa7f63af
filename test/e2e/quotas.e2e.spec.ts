import { DateTime } from 'luxon';

import { DataSource } from 'typeorm';
import { QUOTA_EXPIRED, QUOTA_SPENT } from '../../src/dispatch/quota-budget';
import { FakeServer, startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { insertRows, makePhone, makeQuota, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * Quotas through the real dispatch (docs/dispatch.md#quotas): messages scheduled over HTTP are
 * sent by the inline worker through the `test` adapter or a Kannel fake, and the quota, the
 * entries, the queued `quota` events and get_me are read back.
 */

interface SendedEntry {
  id: number;
  destination: string;
  status: string;
  error: string | null;
  segments: number;
}

/** 170 GSM characters: two segments. */
const TWO_SEGMENTS = 'x'.repeat(170);

const numbers = (count: number, offset = 0) =>
  Array.from({ length: count }, (_, index) => `+336${String(20_000_000 + offset + index)}`);

describeEachDatabase('quotas (inline worker)', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let kannel: FakeServer;
  /** What the Kannel fake answers to every send. */
  let kannelAnswer: [number, string];

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_RETRY_BASE_MS: '20',
      DISPATCH_MAX_ATTEMPTS: '2',
      TZ: 'Europe/Paris',
    });
    ds = t.dataSource;
    kannel = await startFakeServer((_, response) => {
      response.writeHead(kannelAnswer[0], { 'Content-Type': 'text/plain' });
      response.end(kannelAnswer[1]);
    });
  });
  afterAll(async () => {
    await t.close();
    await kannel.close();
  });

  const schedule = async (apiKey: string, text: string, to: string[]): Promise<void> => {
    const response = await api(t, apiKey, 'query')
      .post('/api/scheduled/')
      .send({ text, numbers: to });
    expect(response.status).toBe(201);
  };

  /** The user's entries once there are `count`, in id order. */
  const dispatched = async (userId: number, count: number): Promise<SendedEntry[]> => {
    let entries: SendedEntry[] = [];
    await waitFor(async () => {
      entries = await ds.query<SendedEntry[]>(
        'SELECT id, destination, status, error, segments FROM sended WHERE id_user = ? ORDER BY id',
        [userId],
      );
      return entries.length >= count;
    }, `${count} sent entries`);
    return entries.map((entry) => ({ ...entry, segments: Number(entry.segments) }));
  };

  const stored = async (userId: number) => {
    const [row] = await ds.query<Array<Record<string, unknown>>>(
      'SELECT credit, additional, consumed, reserved, start_date, expiration_date, ' +
        'alerted_close, alerted_reached FROM quota WHERE id_user = ?',
      [userId],
    );
    return {
      credit: Number(row.credit),
      additional: Number(row.additional),
      consumed: Number(row.consumed),
      reserved: Number(row.reserved),
      start_date: String(row.start_date).slice(0, 19),
      expiration_date: String(row.expiration_date).slice(0, 19),
      alerted_close: Number(row.alerted_close),
      alerted_reached: Number(row.alerted_reached),
    };
  };

  const me = async (apiKey: string) => {
    const response = await api(t, apiKey, 'query').get('/api/me/');
    expect(response.status).toBe(200);
    return (response.body as { response: { quota: Record<string, unknown> | null } }).response;
  };

  /** A webhook of type `quota` for the user; its deliveries stay pending (no deliverer here). */
  const quotaWebhook = (userId: number) =>
    insertRows(
      ds,
      'webhook',
      ['id_user', 'url', 'type', 'format', 'secret', 'enabled', 'created_at'],
      [
        [
          userId,
          'https://hooks.example.org/quota',
          'quota',
          'raspisms',
          'a'.repeat(32),
          1,
          '2024-01-01 00:00:00',
        ],
      ],
    );

  const quotaEvents = async (userId: number) =>
    (
      await ds.query<Array<{ payload: string }>>(
        "SELECT payload FROM webhook_delivery WHERE id_user = ? AND event_type = 'quota' ORDER BY id",
        [userId],
      )
    ).map((row) => JSON.parse(row.payload) as Record<string, unknown>);

  const kannelPhone = (userId: number) =>
    makePhone(ds, userId, {
      adapter: 'kannel',
      adapter_data: kannelAdapterData(kannel.url),
    });

  it('consumes the segments of each entry handed to a provider', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
    await makeQuota(ds, user.id, { credit: 10 });

    await schedule(apiKey, TWO_SEGMENTS, numbers(2));
    await schedule(apiKey, 'Hi', numbers(1, 2));
    const entries = await dispatched(user.id, 3);

    expect(entries.map((entry) => [entry.status, entry.segments])).toEqual([
      ['delivered', 2],
      ['delivered', 2],
      ['delivered', 1],
    ]);
    await waitFor(async () => (await stored(user.id)).consumed === 5, 'the record');
    expect(await stored(user.id)).toMatchObject({ consumed: 5, reserved: 0 });
    expect((await me(apiKey)).quota).toMatchObject({ consumed: 5, remaining: 5 });
  });

  it('makes every recipient beyond the credit a failed entry saying the credit is spent, never sent', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await makeQuota(ds, user.id, { credit: 3, additional: 1 });

    await schedule(apiKey, 'Hi', numbers(6));
    const entries = await dispatched(user.id, 6);

    expect(entries.filter((entry) => entry.status !== 'failed')).toHaveLength(4);
    const failed = entries.filter((entry) => entry.status === 'failed');
    expect(failed).toHaveLength(2);
    for (const entry of failed) {
      expect(entry.error).toMatch(
        new RegExp(`^${QUOTA_SPENT}: this message needs 1 SMS segment and 0 are left`),
      );
    }
    expect(new Set(entries.map((entry) => entry.destination)).size).toBe(6);
    expect(await stored(user.id)).toMatchObject({ consumed: 4, reserved: 0 });
  });

  it('refuses a recipient whose text needs more segments than remain, and sends a shorter one after it', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await makeQuota(ds, user.id, { credit: 1 });

    await schedule(apiKey, TWO_SEGMENTS, numbers(1));
    const [refused] = await dispatched(user.id, 1);
    await schedule(apiKey, 'Hi', numbers(1, 1));
    const [, sent] = await dispatched(user.id, 2);

    expect(refused).toMatchObject({ status: 'failed', segments: 2 });
    expect(refused.error).toContain('needs 2 SMS segments and 1 is left');
    expect(sent).toMatchObject({ status: 'unknown', error: null });
    expect(await stored(user.id)).toMatchObject({ consumed: 1, reserved: 0 });
  });

  it('gives back the segments of a send the provider refused', async () => {
    const { user, apiKey } = await makeUser(ds);
    await kannelPhone(user.id);
    await makeQuota(ds, user.id, { credit: 5 });
    kannelAnswer = [400, 'Bad request'];

    await schedule(apiKey, 'Hi', numbers(2));
    const entries = await dispatched(user.id, 2);

    expect(entries.map((entry) => entry.status)).toEqual(['failed', 'failed']);
    expect(entries[0].error).toContain('Kannel refused the message');
    expect(await stored(user.id)).toMatchObject({ consumed: 0, reserved: 0 });
  });

  it('gives back the segments of each attempt that failed for a while, and of the last', async () => {
    const { user, apiKey } = await makeUser(ds);
    await kannelPhone(user.id);
    await makeQuota(ds, user.id, { credit: 5 });
    kannelAnswer = [503, 'Service unavailable'];

    await schedule(apiKey, 'Hi', numbers(1));
    const [entry] = await dispatched(user.id, 1);

    expect(entry.status).toBe('failed');
    expect(entry.error).toContain('gave up after 2 attempts');
    expect(await stored(user.id)).toMatchObject({ consumed: 0, reserved: 0 });
  });

  it('keeps consumed a send the provider took and then reported failed', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });
    await makeQuota(ds, user.id, { credit: 5 });

    await schedule(apiKey, TWO_SEGMENTS, numbers(1));
    const [entry] = await dispatched(user.id, 1);

    expect(entry).toMatchObject({
      status: 'failed',
      error: "The test adapter's delivery setting is failed.",
    });
    expect(await stored(user.id)).toMatchObject({ consumed: 2, reserved: 0 });
  });

  it('consumes nothing for a recipient refused before its send (a phone not available)', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id, { status: 'unavailable' });
    await makeQuota(ds, user.id, { credit: 5 });

    await schedule(apiKey, 'Hi', numbers(1));
    const [entry] = await dispatched(user.id, 1);

    expect(entry.status).toBe('failed');
    expect(entry.error).toContain('unavailable');
    expect(await stored(user.id)).toMatchObject({ consumed: 0, reserved: 0 });
  });

  it('sends nothing on a quota that expired without renewal: each recipient a failed entry saying so', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await makeQuota(ds, user.id, {
      credit: 100,
      start_date: '2020-01-01 00:00:00',
      expiration_date: '2020-02-01 00:00:00',
    });

    await schedule(apiKey, 'Hi', numbers(2));
    const entries = await dispatched(user.id, 2);

    expect(entries.map((entry) => entry.status)).toEqual(['failed', 'failed']);
    expect(entries[0].error).toBe(
      `${QUOTA_EXPIRED} on 2020-02-01 01:00:00 and does not renew itself: nothing is sent until ` +
        'the administrator sets it again.',
    );
    expect(await stored(user.id)).toMatchObject({ consumed: 0, reserved: 0 });
    expect((await me(apiKey)).quota).toMatchObject({ credit: 100, remaining: 0 });
  });

  it('renews an expired quota with auto_renew before sending, carrying over what was left', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    // One period ended an hour ago: one renewal.
    const end = DateTime.utc().minus({ hours: 1 });
    const format = (date: DateTime) => date.toFormat('yyyy-MM-dd HH:mm:ss');
    await makeQuota(ds, user.id, {
      credit: 10,
      additional: 5,
      consumed: 12,
      start_date: format(end.setZone('Europe/Paris').minus({ days: 1 }).toUTC()),
      expiration_date: format(end),
      renew_interval: 'P1D',
      auto_renew: 1,
      report_unused: 1,
      report_unused_additional: 1,
      alerted_close: 1,
      alerted_reached: 0,
    });

    await schedule(apiKey, 'Hi', numbers(1));
    const [entry] = await dispatched(user.id, 1);

    expect(entry.status).toBe('unknown');
    // 12 of 10 + 5 consumed: the credit was spent, 3 of the additional credit were left.
    expect(await stored(user.id)).toEqual({
      credit: 10,
      additional: 3,
      consumed: 1,
      reserved: 0,
      start_date: format(end),
      expiration_date: format(end.setZone('Europe/Paris').plus({ days: 1 }).toUTC()),
      alerted_close: 0,
      alerted_reached: 0,
    });
  });

  it('queues the quota events close and reached once per period, with their figures', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await makeQuota(ds, user.id, { credit: 8, additional: 2 });
    await quotaWebhook(user.id);

    await schedule(apiKey, 'Hi', numbers(9));
    await dispatched(user.id, 9);
    await waitFor(async () => (await quotaEvents(user.id)).length === 1, 'the close event');
    await schedule(apiKey, 'Hi', numbers(1, 9));
    await dispatched(user.id, 10);
    await waitFor(async () => (await quotaEvents(user.id)).length === 2, 'the reached event');
    await schedule(apiKey, 'Hi', numbers(2, 10));
    const entries = await dispatched(user.id, 12);

    expect(entries.slice(10).map((entry) => entry.status)).toEqual(['failed', 'failed']);
    expect(await quotaEvents(user.id)).toEqual([
      { level: 'close', credit: 8, additional: 2, consumed: 9, remaining: 1 },
      { level: 'reached', credit: 8, additional: 2, consumed: 10, remaining: 0 },
    ]);
    expect(await stored(user.id)).toMatchObject({ alerted_close: 1, alerted_reached: 1 });
  });

  it('queues no quota event when the settings turn both alerts off', async () => {
    const { user, apiKey } = await makeUser(ds, {
      settings: { alert_quota_limit_close: '0', alert_quota_limit_reached: '0' },
    });
    await makePhone(ds, user.id);
    await makeQuota(ds, user.id, { credit: 2 });
    await quotaWebhook(user.id);

    await schedule(apiKey, 'Hi', numbers(3));
    await dispatched(user.id, 3);
    await waitFor(async () => (await stored(user.id)).consumed === 2, 'the record');

    expect(await quotaEvents(user.id)).toEqual([]);
  });

  it('leaves a user without a quota unlimited, and get_me says null', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);

    await schedule(apiKey, TWO_SEGMENTS, numbers(3));
    const entries = await dispatched(user.id, 3);

    expect(entries.every((entry) => entry.status === 'unknown')).toBe(true);
    expect((await me(apiKey)).quota).toBeNull();
  });

  it('shows the quota in get_me, dates in the service time zone', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makeQuota(ds, user.id, {
      credit: 100,
      additional: 20,
      consumed: 30,
      reserved: 2,
      start_date: '2026-01-01 00:00:00',
      expiration_date: '2100-01-01 00:00:00',
      auto_renew: 1,
    });

    expect((await me(apiKey)).quota).toEqual({
      credit: 100,
      additional: 20,
      consumed: 32,
      remaining: 88,
      start_date: '2026-01-01 01:00:00',
      expiration_date: '2100-01-01 01:00:00',
      auto_renew: true,
    });
  });
});
