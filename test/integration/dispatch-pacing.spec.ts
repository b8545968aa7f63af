import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { ExpansionService } from '../../src/dispatch/expansion.service';
import { SenderService } from '../../src/dispatch/sender.service';
import { MetricsService } from '../../src/metrics/metrics.service';
import { Phone } from '../../src/phones/entities/phone.entity';
import { ArrivalRecorder, busiestWindow } from '../support/arrival-recorder';
import { openTestDataSource, startApp, TestApp } from '../support/app';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { makePhone, makePhoneGroup, makeScheduled, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { Processes } from '../support/processes';
import { kannelAdapterData } from '../support/adapters.factories';

/*
 * Per-phone pacing (docs/dispatch.md#pacing), through a Kannel fake that notes when each request
 * arrives: a paced phone never sends more than its rate in any second, with the worker inline on
 * either engine and with three worker processes sharing the phone on MariaDB; its campaign waits
 * out of the queue without holding back another phone's; a phone group's messages go to the
 * phone that can send soonest; and rows waiting for their turn when the worker stops go back to
 * the queue, never recorded.
 */

/**
 * A second, less what a loaded machine may add between a send's start and its arrival in the
 * recorder's process (both processes waiting for a core): smsgw paces the starts.
 * bench:dispatch measures whole seconds, with the machine to itself.
 */
const SECOND = 1000 - 50;

function numbers(count: number, offset: number): Array<{ number: string }> {
  return Array.from({ length: count }, (_, n) => ({
    number: `+3361${String(offset + n).padStart(7, '0')}`,
  }));
}

/**
 * A message to `count` numbers, made due once whole: a worker polling meanwhile must not take it
 * half written.
 */
async function campaign(
  ds: DataSource,
  userId: number,
  count: number,
  offset: number,
  target: { id_phone: number } | { id_phone_group: number },
): Promise<void> {
  const scheduled = await makeScheduled(ds, userId, {
    ...target,
    numbers: numbers(count, offset),
    at: '2999-01-01 00:00:00',
  });
  await ds.query(
    "UPDATE scheduled SET at = '2020-01-01 00:00:00', send_after = '2020-01-01 00:00:00' WHERE id = ?",
    [scheduled.id],
  );
}

/** A Kannel phone whose requests arrive under `/<name>/`. */
function kannelPhone(
  ds: DataSource,
  userId: number,
  kannel: ArrivalRecorder,
  name: string,
  rate: number | null,
): Promise<Phone> {
  return makePhone(ds, userId, {
    adapter: 'kannel',
    adapter_data: kannelAdapterData(`${kannel.url}/${name}`),
    rate,
  });
}

const count = async (ds: DataSource, sql: string, params: unknown[] = []) =>
  Number((await ds.query<Array<{ n: number | string }>>(sql, params))[0].n);

describe.each(DATABASE_KINDS)('pacing with the worker inline [%s]', (kind) => {
  jest.setTimeout(60_000);
  let database: TestDatabase;
  let t: TestApp;
  let ds: DataSource;
  let kannel: ArrivalRecorder;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '50' });
    ds = t.dataSource;
    kannel = await ArrivalRecorder.start();
  });
  afterEach(async () => {
    await t.close();
    await kannel.close();
    await database.drop();
  });

  it('sends a paced campaign no faster than the rate, in any second and overall', async () => {
    const { user } = await makeUser(ds);
    const phone = await kannelPhone(ds, user.id, kannel, 'paced', 20);
    await campaign(ds, user.id, 50, 0, { id_phone: phone.id });

    await waitFor(
      async () => (await count(ds, 'SELECT COUNT(*) AS n FROM sended')) === 50,
      '50 entries',
      30_000,
    );

    const arrivals = await kannel.arrivals();
    const times = arrivals.map((arrival) => arrival.at);
    expect(new Set(arrivals.map((arrival) => arrival.to)).size).toBe(50);
    expect(busiestWindow(times, SECOND)).toBeLessThanOrEqual(20);
    // 50 sends at 20 a second cannot span less than 49 intervals of 50 ms.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(49 * 50);
    expect(
      await count(
        ds,
        "SELECT COUNT(*) AS n FROM sended WHERE status <> 'unknown' OR error IS NOT NULL",
      ),
    ).toBe(0);
  });

  it('books a paced campaign out of the queue: another phone sends its own at once; stopping puts the waiting rows back', async () => {
    const { user } = await makeUser(ds);
    const paced = await kannelPhone(ds, user.id, kannel, 'paced', 2);
    const free = await kannelPhone(ds, user.id, kannel, 'free', null);
    await campaign(ds, user.id, 100, 0, { id_phone: paced.id });
    await campaign(ds, user.id, 30, 1000, { id_phone: free.id });

    await waitFor(
      async () =>
        (await count(ds, 'SELECT COUNT(*) AS n FROM sended WHERE id_phone = ?', [free.id])) === 30,
      "the free phone's 30 entries",
      30_000,
    );

    // The paced phone's 100 recipients take 50 s: most are still booked, due later.
    const arrivals = await kannel.arrivals();
    const sentByPaced = arrivals.filter((arrival) => arrival.phone === 'paced').length;
    expect(sentByPaced).toBeLessThan(30);
    const booked = await ds.query<Array<{ n: number | string; first: string }>>(
      "SELECT COUNT(*) AS n, MIN(next_attempt_at) AS first FROM outbox WHERE state = 'queued' " +
        'AND via_phone = ? AND pace_slot IS NOT NULL',
      [paced.id],
    );
    expect(Number(booked[0].n)).toBeGreaterThan(50);
    const [{ pace_next_ms }] = await ds.query<Array<{ pace_next_ms: number | string }>>(
      'SELECT pace_next_ms FROM phone WHERE id = ?',
      [paced.id],
    );
    expect(Number(pace_next_ms)).toBeGreaterThan(Date.now() + 30_000);

    await t.close();
    const reopened = await openTestDataSource(database);
    try {
      const sended = await count(reopened, 'SELECT COUNT(*) AS n FROM sended WHERE id_phone = ?', [
        paced.id,
      ]);
      // Every send that reached the fake is recorded; the rest wait in the queue, none claimed.
      expect(sended).toBe(
        (await kannel.arrivals()).filter((arrival) => arrival.phone === 'paced').length,
      );
      expect(await count(reopened, "SELECT COUNT(*) AS n FROM outbox WHERE state = 'queued'")).toBe(
        100 - sended,
      );
      expect(
        await count(
          reopened,
          "SELECT COUNT(*) AS n FROM sended WHERE status <> 'unknown' OR error IS NOT NULL",
        ),
      ).toBe(0);
    } finally {
      await reopened.destroy();
    }
    t = await startApp(database, { WORKER: 'off' });
  });

  it('gives up the slots its worker was too busy to keep: their rows go back to the queue and are sent later, once each', async () => {
    const { user } = await makeUser(ds);
    const phone = await kannelPhone(ds, user.id, kannel, 'paced', 10);
    await campaign(ds, user.id, 5, 0, { id_phone: phone.id });
    await waitFor(
      async () =>
        (await count(ds, "SELECT COUNT(*) AS n FROM outbox WHERE state = 'sending'")) === 5,
      'the 5 rows claimed',
    );

    // The worker runs in this process: holding its thread for a second lets every slot pass.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    await waitFor(
      async () => (await count(ds, 'SELECT COUNT(*) AS n FROM sended')) === 5,
      '5 entries',
    );

    const arrivals = await kannel.arrivals();
    expect(arrivals).toHaveLength(5);
    expect(new Set(arrivals.map((arrival) => arrival.to)).size).toBe(5);
    const missed = /^smsgw_paced_slots_missed_total\{adapter="kannel"\} (\d+)$/m.exec(
      await t.app.get(MetricsService).scrape(),
    );
    expect(Number(missed?.[1])).toBeGreaterThan(0);
    expect(
      await count(
        ds,
        "SELECT COUNT(*) AS n FROM sended WHERE status <> 'unknown' OR error IS NOT NULL",
      ),
    ).toBe(0);
  });

  it("sends a group's messages through the phone that can send soonest", async () => {
    const { user } = await makeUser(ds);
    const first = await kannelPhone(ds, user.id, kannel, 'first', 2);
    const second = await kannelPhone(ds, user.id, kannel, 'second', 2);
    const group = await makePhoneGroup(ds, user.id, [first.id, second.id]);
    await campaign(ds, user.id, 12, 0, { id_phone_group: group.id });

    await waitFor(
      async () =>
        (await count(
          ds,
          'SELECT (SELECT COUNT(*) FROM sended) + (SELECT COUNT(*) FROM outbox WHERE via_phone IS NOT NULL) AS n',
        )) === 12,
      'the 12 recipients given a phone',
    );

    // At random, an even split would come one time in four; by turns, it always does.
    const byPhone = await ds.query<Array<{ phone: number; n: number | string }>>(
      'SELECT phone, COUNT(*) AS n FROM (SELECT id_phone AS phone FROM sended UNION ALL ' +
        'SELECT via_phone AS phone FROM outbox) chosen GROUP BY phone ORDER BY phone',
    );
    expect(byPhone.map((row) => [Number(row.phone), Number(row.n)])).toEqual([
      [first.id, 6],
      [second.id, 6],
    ]);
  });

  it('sends through an unpaced phone of the group what the paced phone cannot send soon', async () => {
    const { user } = await makeUser(ds);
    const paced = await kannelPhone(ds, user.id, kannel, 'paced', 5);
    const free = await kannelPhone(ds, user.id, kannel, 'free', null);
    const group = await makePhoneGroup(ds, user.id, [paced.id, free.id]);
    await campaign(ds, user.id, 200, 0, { id_phone_group: group.id });

    await waitFor(
      async () => (await count(ds, 'SELECT COUNT(*) AS n FROM sended')) === 200,
      '200 entries',
      30_000,
    );

    const viaPaced = await count(ds, 'SELECT COUNT(*) AS n FROM sended WHERE id_phone = ?', [
      paced.id,
    ]);
    // The paced phone takes what it can send within the claim's reach (2 s at 5 a second).
    expect(viaPaced).toBeGreaterThan(0);
    expect(viaPaced).toBeLessThanOrEqual(11);
    expect(
      busiestWindow(
        (await kannel.arrivals())
          .filter((arrival) => arrival.phone === 'paced')
          .map((arrival) => arrival.at),
        SECOND,
      ),
    ).toBeLessThanOrEqual(5);
  });
});

describe.each(DATABASE_KINDS)('booked rows claimed ahead of the queue [%s]', (kind) => {
  let database: TestDatabase;
  let t: TestApp;

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    t = await startApp(database, { WORKER: 'off', DISPATCH_BATCH_SIZE: '10' });
  });
  afterEach(async () => {
    await t.close();
    await database.drop();
  });

  it("claims a booked row when its turn comes, before an older backlog of another phone's rows", async () => {
    const ds = t.dataSource;
    const sender = t.app.get(SenderService);
    const expansion = t.app.get(ExpansionService);
    const { user } = await makeUser(ds);
    const paced = await makePhone(ds, user.id, { rate: 1 });
    const busy = await makePhone(ds, user.id);
    await campaign(ds, user.id, 50, 1000, { id_phone: busy.id });
    await expansion.expandNext();
    await campaign(ds, user.id, 5, 0, { id_phone: paced.id });
    await expansion.expandNext();
    // The backlog stands first in the queue.
    await ds.query('UPDATE outbox SET next_attempt_at = ? WHERE via_phone IS NULL', [
      '2020-01-01 00:00:00',
    ]);

    // One claim of ten: the paced phone's two first slots come within 2 s, its others are booked.
    await ds.query('UPDATE outbox SET next_attempt_at = ? WHERE id_phone = ?', [
      '2019-01-01 00:00:00',
      paced.id,
    ]);
    await sender.sendBatches('worker-a', 1);
    const booked = await ds.query<Array<{ id: number; pace_slot: number | string }>>(
      "SELECT id, pace_slot FROM outbox WHERE state = 'queued' AND via_phone = ? ORDER BY pace_slot",
      [paced.id],
    );
    expect(booked).toHaveLength(3);

    // Once the first booked row's slot is within 2 s, the next claim takes it before the backlog.
    const wait = Number(booked[0].pace_slot) - 2000 - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait) + 50));
    await sender.sendBatches('worker-a', 1);

    // Claimed: it waits in the worker for its slot.
    const [row] = await ds.query<Array<{ state: string }>>(
      'SELECT state FROM outbox WHERE id = ?',
      [booked[0].id],
    );
    expect(row.state).toBe('sending');
    expect(
      await count(ds, "SELECT COUNT(*) AS n FROM outbox WHERE via_phone = ? AND state = 'queued'", [
        paced.id,
      ]),
    ).toBe(2);
    await sender.stop('worker-a');
  });
});

(DATABASE_KINDS.includes('mariadb') ? describe : describe.skip)(
  'pacing held across three worker processes on MariaDB',
  () => {
    jest.setTimeout(90_000);
    let database: TestDatabase;
    let ds: DataSource;
    let running: Processes;
    let kannel: ArrivalRecorder;

    beforeAll(async () => {
      database = await createTestDatabase('mariadb');
      ds = await openTestDataSource(database);
      await migrate(ds);
      running = Processes.dispatchers('worker.js', database, { DISPATCH_BATCH_SIZE: '20' });
      kannel = await ArrivalRecorder.start();
    });
    afterAll(async () => {
      await running.stopAll();
      await kannel.close();
      await ds.destroy();
      await database.drop();
    });

    it('never sends faster than the rate in any second, whichever worker sends', async () => {
      const { user } = await makeUser(ds);
      const phone = await kannelPhone(ds, user.id, kannel, 'paced', 25);
      await makeScheduled(ds, user.id, {
        id_phone: phone.id,
        numbers: numbers(150, 0),
        at: '2999-01-01 00:00:00',
      });
      running.start();
      running.start();
      running.start();
      await waitFor(
        async () => (await count(ds, 'SELECT COUNT(*) AS n FROM worker')) === 3,
        'three workers',
      );
      await ds.query(
        "UPDATE scheduled SET at = '2020-01-01 00:00:00', send_after = '2020-01-01 00:00:00'",
      );

      const claimers = new Set<string>();
      await waitFor(
        async () => {
          for (const { claimed_by } of await ds.query<Array<{ claimed_by: string }>>(
            "SELECT DISTINCT claimed_by FROM outbox WHERE state = 'sending'",
          )) {
            claimers.add(claimed_by);
          }
          return (await count(ds, 'SELECT COUNT(*) AS n FROM sended')) === 150;
        },
        '150 entries',
        60_000,
      );

      const arrivals = await kannel.arrivals();
      const times = arrivals.map((arrival) => arrival.at);
      expect(new Set(arrivals.map((arrival) => arrival.to)).size).toBe(150);
      expect(arrivals).toHaveLength(150);
      expect(busiestWindow(times, SECOND)).toBeLessThanOrEqual(25);
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual((149 * 1000) / 25);
      expect(claimers.size).toBeGreaterThan(1);
      expect(
        await count(
          ds,
          "SELECT COUNT(*) AS n FROM sended WHERE status <> 'unknown' OR error IS NOT NULL",
        ),
      ).toBe(0);
    });
  },
);
