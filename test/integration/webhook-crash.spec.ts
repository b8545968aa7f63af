import { createHmac } from 'node:crypto';
import { DriverRunner } from '../../src/database/driver/runner';
import { migrate } from '../../src/database/data-source';
import { queueEvents } from '../../src/events/webhook-events';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { openTestDataSource } from '../support/app';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { Processes } from '../support/processes';

/*
 * Webhook events are never lost (docs/api.md#webhook-deliveries), proven on the built processes
 * (`npm test` builds `dist/` first): 5,000 events wait in the database while the workers that
 * deliver them to a receiver on 127.0.0.1 are killed with SIGKILL at random moments and started
 * again. Afterwards the receiver has every event at least once, signed, and every copy of an
 * event carries the id of its first copy; each delivery's log holds the attempt that delivered it.
 */

const EVENTS = 5_000;
const SECRET = '0123456789abcdef0123456789abcdef';

/** Keeps the event id of every copy of each event (the payload's `id`, numbered here). */
class Receiver {
  readonly copies = new Map<number, string[]>();
  readonly badSignatures: string[] = [];
  server!: FakeServer;

  async start(): Promise<void> {
    this.server = await startFakeServer((_request, response, body) => {
      const form = new URLSearchParams(body);
      const eventId = form.get('webhook_random_id') ?? '';
      if (
        form.get('webhook_signature') !== createHmac('sha256', SECRET).update(eventId).digest('hex')
      ) {
        this.badSignatures.push(eventId);
      }
      const { id } = JSON.parse(form.get('body') ?? '{}') as { id: number };
      this.copies.set(id, [...(this.copies.get(id) ?? []), eventId]);
      response.writeHead(200);
      response.end();
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function crashTest(
  kind: 'sqlite' | 'mariadb',
  script: string,
  processes: number,
  env: Record<string, string>,
): Promise<void> {
  const database: TestDatabase = await createTestDatabase(kind);
  const receiver = new Receiver();
  await receiver.start();
  const ds = await openTestDataSource(database);
  // A lease of 4 timeouts and 10 s: the claims of a killed worker come back within 14 s.
  const running = Processes.dispatchers(script, database, { WEBHOOK_TIMEOUT_MS: '1000', ...env });
  try {
    await migrate(ds);
    const { user } = await makeUser(ds);
    await ds.query(
      'INSERT INTO webhook (id_user, url, type, format, secret, enabled, created_at) ' +
        "VALUES (?, ?, 'receive_sms', 'raspisms', ?, 1, ?)",
      [user.id, `${receiver.server.url}/hook`, SECRET, '2026-01-01 00:00:00'],
    );
    const at = new Date();
    await DriverRunner.for(ds).transaction(
      queueEvents(
        Array.from({ length: EVENTS }, (_, id) => ({
          userId: user.id,
          type: 'receive_sms' as const,
          at,
          payload: () => ({ id, text: `event ${id}` }),
        })),
      ),
    );
    const count = async (sql: string) =>
      Number((await ds.query<Array<{ n: number | string }>>(sql))[0].n);
    const done = async () =>
      (await count("SELECT COUNT(*) AS n FROM webhook_delivery WHERE status = 'delivered'")) ===
      EVENTS;

    for (let index = 0; index < processes; index++) {
      running.start();
    }
    // The kills land while events are being delivered, not while the processes boot.
    await waitFor(() => Promise.resolve(receiver.copies.size > 0), 'a first delivery');
    let kills = 0;
    while (kills < 5 && !(await done())) {
      await sleep(Math.random() * 600);
      await running.killOneAndRestart();
      kills++;
    }
    expect(kills).toBeGreaterThan(0);
    await waitFor(done, `${EVENTS} delivered events`, 150_000);

    expect(receiver.badSignatures).toEqual([]);
    expect(receiver.copies.size).toBe(EVENTS);
    const stored = new Map(
      (
        await ds.query<Array<{ payload: string; event_id: string }>>(
          'SELECT payload, event_id FROM webhook_delivery',
        )
      ).map((row) => [(JSON.parse(row.payload) as { id: number }).id, row.event_id]),
    );
    for (let id = 0; id < EVENTS; id++) {
      const copies = receiver.copies.get(id) ?? [];
      expect({ id, copies: new Set(copies) }).toEqual({ id, copies: new Set([stored.get(id)]) });
    }
    expect(await count('SELECT COUNT(*) AS n FROM webhook_delivery')).toBe(EVENTS);
    // The attempt that delivered each event is in its log, once, written with its outcome; the
    // attempts of a killed worker, whose outcome was never recorded, are not. On a loaded
    // machine an attempt may also time out before the receiver answers: it is logged as the
    // failure it was, and the delivery's next attempt delivers it.
    expect(await count('SELECT COUNT(*) AS n FROM webhook_attempt WHERE http_status = 200')).toBe(
      EVENTS,
    );
    expect(
      await count(
        'SELECT COUNT(*) AS n FROM webhook_attempt ' +
          'WHERE (http_status IS NULL OR http_status <> 200) AND error IS NULL',
      ),
    ).toBe(0);
    expect(
      await count(
        'SELECT COUNT(DISTINCT a.id_delivery) AS n FROM webhook_attempt a ' +
          "JOIN webhook_delivery d ON d.id = a.id_delivery WHERE a.http_status = 200 AND d.status = 'delivered'",
      ),
    ).toBe(EVENTS);
  } finally {
    await running.stopAll();
    await ds.destroy();
    await receiver.server.close();
    await database.drop();
  }
}

describe('webhook deliveries under SIGKILL: every event at least once, duplicates with its id', () => {
  jest.setTimeout(240_000);

  it('the SQLite worker (inline in the API process) killed and restarted', async () => {
    await crashTest('sqlite', 'main.js', 1, { WORKER: 'inline', PORT: '0', HOST: '127.0.0.1' });
  });

  (DATABASE_KINDS.includes('mariadb') ? it : it.skip)(
    'three worker processes on MariaDB, one killed at random moments',
    async () => {
      await crashTest('mariadb', 'worker.js', 3, {});
    },
  );
});
