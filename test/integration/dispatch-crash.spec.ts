import { DataSource } from 'typeorm';
import { openTestDataSource } from '../support/app';
import { FakeServer, startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { TestDatabase, createTestDatabase, DATABASE_KINDS } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { Processes } from '../support/processes';
import { migrate } from '../../src/database/data-source';
import { chunks, rowMarks } from '../../src/database/driver/placeholders';
import { UNKNOWN_OUTCOME } from '../../src/dispatch/recording.service';

/*
 * Never lost, never twice (issue 4, point 8), proven on the built processes (`npm test` builds
 * `dist/` first): workers send through a Kannel fake on 127.0.0.1 that counts what it receives,
 * while the test kills them with SIGKILL at random moments and starts them again. Afterwards
 * every recipient has exactly one `sended` entry and the fake got no recipient twice.
 */

/** A campaign's text, and what each recipient receives. */
interface Campaign {
  text: string;
  receives(destination: string): string;
}

const PLAIN: Campaign = { text: 'Crash test', receives: () => 'Crash test' };

/** Rendered per recipient, for a few milliseconds each: kills land mid-render too. */
const TEMPLATED: Campaign = {
  text: '{% for i in 1..300 %}{% endfor %}Crash test for {{ contact_metas.number }}',
  receives: (destination) => `Crash test for ${destination}`,
};

/** Templates render within this, however loaded the machine: none fails for being slow. */
const GENEROUS_RENDERS = { TEMPLATE_TIMEOUT_MS: '10000' };

/** Kannel's sendsms: counts each `to`, answers 202 as Kannel does. */
class FakeKannel {
  readonly received = new Map<string, number>();
  server!: FakeServer;

  async start(): Promise<void> {
    this.server = await startFakeServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://kannel');
      const to = url.searchParams.get('to') ?? '';
      this.received.set(to, (this.received.get(to) ?? 0) + 1);
      response.writeHead(202, { 'Content-Type': 'text/plain' });
      response.end('0: Accepted for delivery');
    });
  }
}

/** `count` distinct French mobile numbers. */
function numbers(count: number, offset = 0): string[] {
  return Array.from({ length: count }, (_, index) => `+336${String(10_000_000 + offset + index)}`);
}

/** Schedules `recipients` in messages of `perMessage` numbers, due now, with multi-row inserts. */
async function scheduleCampaign(
  ds: DataSource,
  userId: number,
  phoneId: number,
  recipients: readonly string[],
  perMessage: number,
  text: string,
): Promise<void> {
  for (let start = 0; start < recipients.length; start += perMessage) {
    const result: unknown = await ds.query(
      'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, id_phone, created_at) ' +
        'VALUES (?, ?, ?, ?, 0, 0, ?, ?)',
      [userId, '2020-01-01 00:00:00', '2020-01-01 00:00:00', text, phoneId, '2020-01-01 00:00:00'],
    );
    const scheduledId =
      typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);
    for (const part of chunks(recipients.slice(start, start + perMessage), 500)) {
      await ds.query(
        'INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES ' +
          rowMarks(part.length, 4),
        part.flatMap((number) => [scheduledId, number, '[]', '2020-01-01 00:00:00']),
      );
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Count = (sql: string) => Promise<number>;

/** Kills at random moments, up to 6 times, while the campaign is under way. */
async function killAtRandom(running: Processes, done: () => Promise<boolean>): Promise<void> {
  let kills = 0;
  while (kills < 6 && !(await done())) {
    await sleep(100 + Math.random() * 1200);
    await running.killOneAndRestart();
    kills++;
  }
  // The campaign takes seconds: the kills land while it is being dispatched.
  expect(kills).toBeGreaterThan(0);
}

/** Kills once while templated texts wait for their render, then at random moments. */
async function killWhileRendering(
  running: Processes,
  done: () => Promise<boolean>,
  count: Count,
): Promise<void> {
  await waitFor(
    async () => (await count("SELECT COUNT(*) AS n FROM outbox WHERE state = 'unrendered'")) > 0,
    'recipients waiting for their render',
  );
  await running.killOneAndRestart();
  await killAtRandom(running, done);
}

async function crashTest(
  kind: 'sqlite' | 'mariadb',
  script: string,
  processes: number,
  recipients: number,
  extraEnv: Record<string, string>,
  disrupt: (running: Processes, done: () => Promise<boolean>, count: Count) => Promise<void>,
  afterwards: (count: Count) => Promise<void> = () => Promise.resolve(),
  campaign: Campaign = PLAIN,
): Promise<void> {
  const database: TestDatabase = await createTestDatabase(kind);
  const kannel = new FakeKannel();
  await kannel.start();
  const ds = await openTestDataSource(database);
  const running = Processes.dispatchers(script, database, extraEnv);
  try {
    await migrate(ds);
    const { user } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      adapter: 'kannel',
      adapter_data: kannelAdapterData(kannel.server.url),
    });
    const all = numbers(recipients);
    await scheduleCampaign(ds, user.id, phone.id, all, 1000, campaign.text);

    for (let i = 0; i < processes; i++) {
      running.start();
    }
    const count: Count = async (sql) =>
      Number((await ds.query<Array<{ n: number | string }>>(sql))[0].n);
    const done = async () =>
      (await count('SELECT COUNT(*) AS n FROM sended')) >= recipients &&
      (await count('SELECT COUNT(*) AS n FROM outbox')) === 0;
    await disrupt(running, done, count);
    await waitFor(done, `${recipients} sent entries`, 150_000);

    const entries = await ds.query<
      Array<{ destination: string; status: string; error: string | null; text: string }>
    >('SELECT destination, status, error, text FROM sended ORDER BY id');
    const perDestination = new Map<string, number>();
    for (const entry of entries) {
      perDestination.set(entry.destination, (perDestination.get(entry.destination) ?? 0) + 1);
    }
    expect(entries).toHaveLength(recipients);
    expect([...perDestination.keys()].sort()).toEqual([...all].sort());
    expect([...perDestination.values()].every((n) => n === 1)).toBe(true);
    expect([...kannel.received.values()].every((n) => n === 1)).toBe(true);
    for (const entry of entries) {
      expect({ destination: entry.destination, text: entry.text }).toEqual({
        destination: entry.destination,
        text: campaign.receives(entry.destination),
      });
      if (entry.error === UNKNOWN_OUTCOME) {
        expect(entry.status).toBe('unknown');
      } else {
        // Recorded from the provider's answer: the fake got it, once.
        expect({
          destination: entry.destination,
          status: entry.status,
          error: entry.error,
        }).toEqual({
          destination: entry.destination,
          status: 'unknown',
          error: null,
        });
        expect(kannel.received.get(entry.destination)).toBe(1);
      }
    }
    expect(await count('SELECT COUNT(*) AS n FROM scheduled')).toBe(0);
    await afterwards(count);
  } finally {
    await running.stopAll();
    await ds.destroy();
    await kannel.server.close();
    await database.drop();
  }
}

const INLINE = { WORKER: 'inline', PORT: '0', HOST: '127.0.0.1' };

describe('dispatch under SIGKILL: never lost, never twice', () => {
  jest.setTimeout(240_000);

  it('inline worker on SQLite, the API process killed and restarted', async () => {
    await crashTest('sqlite', 'main.js', 1, 5_000, INLINE, killAtRandom);
  });

  it('a process stopped with SIGTERM records its sends in flight before it exits: none unknown', async () => {
    await crashTest(
      'sqlite',
      'main.js',
      1,
      3_000,
      INLINE,
      async (running, done, count) => {
        const sent = () => count('SELECT COUNT(*) AS n FROM sended');
        await waitFor(async () => (await sent()) > 0, 'a first entry');
        await running.stopAll();
        expect(await done()).toBe(false);
        expect(await count("SELECT COUNT(*) AS n FROM outbox WHERE state = 'sending'")).toBe(0);
        running.start();
      },
      async (count) => {
        expect(await count('SELECT COUNT(*) AS n FROM sended WHERE error IS NOT NULL')).toBe(0);
      },
    );
  });

  it('inline worker on SQLite, killed and restarted while it renders a templated text', async () => {
    await crashTest(
      'sqlite',
      'main.js',
      1,
      5_000,
      { ...INLINE, ...GENEROUS_RENDERS },
      killWhileRendering,
      undefined,
      TEMPLATED,
    );
  });

  (DATABASE_KINDS.includes('mariadb') ? it : it.skip)(
    'three worker processes on MariaDB, one killed at random moments, 20,000 recipients',
    async () => {
      await crashTest('mariadb', 'worker.js', 3, 20_000, {}, killAtRandom);
    },
  );

  (DATABASE_KINDS.includes('mariadb') ? it : it.skip)(
    'three worker processes on MariaDB sharing the renders of a templated text, one killed at random moments',
    async () => {
      await crashTest(
        'mariadb',
        'worker.js',
        3,
        6_000,
        GENEROUS_RENDERS,
        killWhileRendering,
        undefined,
        TEMPLATED,
      );
    },
  );
});
