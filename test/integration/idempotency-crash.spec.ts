import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { BuiltApp, requireBuild, startBuiltApp } from '../support/built-app';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { makeUser } from '../support/factories';

/*
 * Idempotency keys across API processes (docs/idempotency.md), on the built processes (`npm test`
 * builds `dist/` first), without a worker so that every message stays where the API wrote it:
 * - many requests with one key, spread over several processes at once, create one message;
 * - while processes are killed with SIGKILL at random moments and started again, a client
 *   sends each of N keys (two copies at a time, to two processes) until it gets an answer:
 *   afterwards each key has exactly one message, the one every answer for it named. A kill
 *   between the commit and the answer is the case a retry must replay, not create again.
 */

/** API processes: SQLite shares one file between them, MariaDB its server. */
const PROCESSES = { sqlite: 4, mariadb: 4 };
const KEYS = 60;
/** Keys start one after the other over this long, so that kills fall among their requests. */
const SPREAD_MS = 8_000;

/** A process serves once its readiness check answers (cheaper than the OpenAPI document). */
const READY = '/health/ready';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The processes serving the API, any of which may be killed and replaced. */
class Cluster {
  private readonly apps: BuiltApp[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(count: number): Promise<void> {
    const started = await Promise.all(
      Array.from({ length: count }, () => startBuiltApp(this.env, this.env.DATA_DIR, READY)),
    );
    this.apps.push(...started);
  }

  /** The URL of a live process, at random. */
  any(): string {
    return this.apps[Math.floor(Math.random() * this.apps.length)].url;
  }

  /**
   * SIGKILLs one process at random while another one lives, and starts one in its place, which
   * joins once it answers; false when only one lives.
   */
  async killOne(): Promise<boolean> {
    if (this.apps.length < 2) {
      return false;
    }
    const index = Math.floor(Math.random() * this.apps.length);
    const [victim] = this.apps.splice(index, 1);
    await victim.stop('SIGKILL');
    this.starting.push(
      startBuiltApp(this.env, this.env.DATA_DIR, READY).then((app) => {
        this.apps.push(app);
      }),
    );
    return true;
  }

  async stop(): Promise<void> {
    await Promise.all(this.starting);
    await Promise.all(this.apps.map((app) => app.stop()));
  }

  private readonly starting: Array<Promise<void>> = [];
}

/** Requests that got no answer, their process killed under them. */
let cut = 0;

/** get_send_sms with `key`, through `url`: the id answered, or null for no usable answer. */
async function send(url: string, apiKey: string, key: string): Promise<number | null> {
  try {
    const query = new URLSearchParams({ to: '+33612345678', text: `message ${key}` });
    const response = await fetch(`${url}/api/send-sms/?${query.toString()}`, {
      headers: { 'X-Api-Key': apiKey, 'Idempotency-Key': key },
    });
    const body = (await response.json()) as { error: number; response: number };
    if (response.status === 200 && body.error === 0) {
      return body.response;
    }
    // 409 (the first request with the key is in flight) and 5xx are retried; any other refusal
    // would be a bug, and shows as a key without an answer.
    if (response.status !== 409 && response.status < 500) {
      throw new Error(`Key ${key}: HTTP ${response.status} ${JSON.stringify(body)}`);
    }
    return null;
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('Key ')) {
      throw error;
    }
    // The process died before its answer, or during it.
    cut += 1;
    return null;
  }
}

/** What the database holds per key: the ids of the messages whose text names it. */
async function storedIds(ds: DataSource, userId: number): Promise<Map<string, number[]>> {
  const rows = await ds.query<Array<{ id: number | string; text: string }>>(
    'SELECT id, text FROM scheduled WHERE id_user = ? ORDER BY id',
    [userId],
  );
  const byKey = new Map<string, number[]>();
  for (const row of rows) {
    const key = row.text.replace(/^message /, '');
    byKey.set(key, [...(byKey.get(key) ?? []), Number(row.id)]);
  }
  return byKey;
}

describe.each(DATABASE_KINDS)('idempotency keys across API processes [%s]', (kind) => {
  let database: TestDatabase;
  let ds: DataSource;
  let cluster: Cluster;

  beforeAll(async () => {
    requireBuild();
    database = await createTestDatabase(kind);
    ds = await openTestDataSource(database);
    await migrate(ds);
    cluster = new Cluster({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      WORKER: 'off',
      TEXT_THREADS: '1',
    });
    await cluster.start(PROCESSES[kind]);
  });
  afterAll(async () => {
    await cluster?.stop();
    await ds?.destroy();
    await database?.drop();
  });

  it('creates one message for many concurrent requests with one key over every process', async () => {
    const { user, apiKey } = await makeUser(ds);

    const ids = await Promise.all(
      Array.from({ length: 60 }, async () => {
        for (;;) {
          const id = await send(cluster.any(), apiKey, 'burst');
          if (id !== null) {
            return id;
          }
          await sleep(20);
        }
      }),
    );

    const stored = await storedIds(ds, user.id);
    expect(new Set(ids).size).toBe(1);
    expect(stored.get('burst')).toEqual([ids[0]]);
  }, 60_000);

  it('keeps exactly one message per key while processes are killed at random moments', async () => {
    const { user, apiKey } = await makeUser(ds);
    const answers = new Map<string, Set<number>>();
    let killing = true;
    let kills = 0;
    cut = 0;
    const stopKilling = setTimeout(() => (killing = false), SPREAD_MS + 1_500);

    const killer = (async () => {
      while (killing) {
        await sleep(200 + Math.random() * 400);
        if (killing && (await cluster.killOne())) {
          kills += 1;
        }
      }
    })();
    await Promise.all(
      Array.from({ length: KEYS }, async (_, index) => {
        const key = `key-${index}`;
        await sleep((SPREAD_MS * index) / KEYS);
        const seen = new Set<number>();
        answers.set(key, seen);
        // Two copies at a time, to two processes: a concurrent request and a retry at once. An
        // answered key is sent again until the kills end: its answer must not change.
        while (seen.size === 0 || killing) {
          const [a, b] = await Promise.all([
            send(cluster.any(), apiKey, key),
            send(cluster.any(), apiKey, key),
          ]);
          [a, b].forEach((id) => id !== null && seen.add(id));
          await sleep(20);
        }
      }),
    );
    clearTimeout(stopKilling);
    await killer;

    const stored = await storedIds(ds, user.id);
    const wrong = [...answers].filter(
      ([key, ids]) => ids.size !== 1 || stored.get(key)?.join() !== [...ids].join(),
    );
    expect(
      wrong.map(
        ([key, ids]) => `${key}: answered ${[...ids].join()}, stored ${stored.get(key)?.join()}`,
      ),
    ).toEqual([]);
    expect(stored.size).toBe(KEYS);
    const keyRows = await ds.query<Array<{ n: number | string }>>(
      'SELECT COUNT(*) AS n FROM idempotency_key WHERE id_user = ?',
      [user.id],
    );
    expect(Number(keyRows[0].n)).toBe(KEYS);
    // Kills fell among requests: some were cut.
    expect({ kills: kills >= 3, cut: cut > 0 }).toEqual({ kills: true, cut: true });
  }, 90_000);
});
