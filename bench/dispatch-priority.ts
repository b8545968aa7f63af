import { spawn, ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PDU, Session } from 'smpp';
import { DataSource } from 'typeorm';
import { hashApiKey } from '../src/common/auth/api-key';
import { adapterDataScope } from '../src/common/secrets/adapter-data-scope';
import { sealFields } from '../src/common/secrets/sealed-fields';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { migrate, openDataSource } from '../src/database/data-source';
import { FakeSmsc } from '../test/support/fake-smsc';
import { BenchDatabase, createBenchDatabase } from './database';
import {
  DIST,
  MYSQL,
  Setup,
  configFor,
  machineLine,
  releaseMessages,
  seedMessages,
  seedPhone,
  seedUser,
  sleep,
  startDispatchers,
  stopDispatchers,
} from './dispatch-support';
import { freePort } from './ports';

/*
 * bench:dispatch-priority (issue 25, priority): while one normal-priority message to
 * BENCH_PRIORITY_RECIPIENTS numbers (default 100,000) is being sent through an SMPP phone, to the
 * fake SMSC of the tests on 127.0.0.1 (answering each submit_sm at once), BENCH_PRIORITY_HIGH
 * (default 200) get_send_sms requests with priority=high go through the same phone, one every
 * (its remaining time / 3) / 200 (by its rate over its first 5 s), starting then. For each: the time
 * from just before its request to the arrival of its submit_sm at the SMSC (p50, p99, max); and
 * the campaign's own rate (its submit_sm per second at the SMSC) while the high sends run (from
 * the first request to the last arrival) and outside that span (before and after it), in the
 * same run.
 *
 * SQLite: one API process with the worker inline. MariaDB: one API process without a worker
 * (WORKER=off) and three worker processes. The fake SMSC runs in this process, which does little
 * else meanwhile (no polling of the database: it counts arrivals).
 *
 * Runs the built processes: `npm run build` first (`npm run bench:dispatch-priority` does).
 * BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test, "off" to skip), BENCH_ENGINES
 * (default SQLite,MariaDB), BENCH_POLL_MS (default 20), BENCH_PRIORITY_RECIPIENTS,
 * BENCH_PRIORITY_HIGH.
 */

const RECIPIENTS = Number(process.env.BENCH_PRIORITY_RECIPIENTS ?? 100_000);
const HIGH = Number(process.env.BENCH_PRIORITY_HIGH ?? 200);
const WARM_UP_MS = 5000;
/** No new arrival at the SMSC for this long: the run is given up as stalled. */
const STALL_MS = 60_000;
const API_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
/** The SMPP adapter's secret fields: stored sealed, as the API would. */
const SMPP_SECRETS = ['password'];
const TARGET_P99_MS = 1000;

const epochMs = () => performance.timeOrigin + performance.now();

interface Engine {
  name: string;
  target: string;
  /** Processes that dispatch, beside the API process (none: the API's inline worker). */
  workers: Setup | null;
}

interface Result {
  engine: string;
  setup: string;
  latencies: number[];
  missing: number;
  withRate: number;
  withoutRate: number;
  beforeRate: number;
  afterRate: number;
  campaignSeconds: number;
  /** Whether high sends arrived after the campaign's last one: its rate with them is partial. */
  highAfterCampaign: boolean;
  sended: number;
  load: number;
  stalled: string | null;
}

/** The SMSC's arrivals: when each destination's submit_sm came. */
class Sink {
  readonly smsc = new FakeSmsc();
  readonly arrivals = new Map<string, number>();
  /** Arrival times of the campaign's submit_sm, in order. */
  readonly campaign: number[] = [];
  lastAt = 0;

  constructor() {
    this.smsc.noDelay = true;
    let sent = 0;
    this.smsc.answerSubmit = (pdu: PDU, session: Session) => {
      const at = epochMs();
      const to = String(pdu.destination_addr);
      if (to.startsWith('337')) {
        this.arrivals.set(to, at);
      } else {
        this.campaign.push(at);
      }
      this.lastAt = at;
      sent += 1;
      session.send(pdu.response({ message_id: `m-${sent}` }));
      // The fake keeps every PDU for the tests' assertions: a bench of 100,000 needs none.
      this.smsc.received.length = 0;
    };
  }
}

/** The API process on `port`, with `worker` (inline or off), once it answers. */
async function startApi(
  database: BenchDatabase,
  port: number,
  worker: 'inline' | 'off',
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(DIST, 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'warn',
      DISPATCH_POLL_MS: process.env.BENCH_POLL_MS ?? '20',
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKER: worker,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`main.js exited (${child.exitCode ?? child.signalCode}) before it was up`);
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) {
        return child;
      }
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
}

async function seed(ds: DataSource, config: ReturnType<typeof configFor>, smscPort: number) {
  const user = await seedUser(ds);
  await ds.query('UPDATE user SET api_key_hash = ? WHERE id = ?', [hashApiKey(API_KEY), user]);
  const phone = await seedPhone(ds, user, 'smsc', 'smpp');
  const data = sealFields(
    secretCipher(config),
    SMPP_SECRETS,
    {
      host: '127.0.0.1',
      port: String(smscPort),
      system_id: 'smsgw',
      password: 'secret',
      source_addr: '+33612345678',
    },
    adapterDataScope({ id: phone, id_user: user }),
  );
  await ds.query('UPDATE phone SET adapter_data = ? WHERE id = ?', [JSON.stringify(data), phone]);
  await seedMessages(ds, user, phone, RECIPIENTS, 'Hello Ada', 'one');
  return phone;
}

async function run(engine: Engine): Promise<Result> {
  const database = await createBenchDatabase(engine.target);
  const config = configFor(database);
  const ds = await openDataSource(config.database, secretCipher(config));
  const sink = new Sink();
  const smscPort = await sink.smsc.start();
  const children: ChildProcess[] = [];
  try {
    await migrate(ds);
    const phone = await seed(ds, config, smscPort);
    const port = await freePort();
    children.push(await startApi(database, port, engine.workers ? 'off' : 'inline'));
    if (engine.workers) {
      children.push(...(await startDispatchers(ds, database, engine.workers)));
    }
    const load = loadavg()[0];
    await releaseMessages(ds);
    const released = epochMs();
    let stalled: string | null = null;
    const waitFor = async (done: () => boolean, what: string) => {
      while (!done()) {
        const quiet = epochMs() - Math.max(sink.lastAt, released);
        if (quiet > STALL_MS) {
          stalled = `no submit_sm for ${STALL_MS / 1000} s while waiting for ${what}: campaign ${sink.campaign.length}/${RECIPIENTS}, high ${sink.arrivals.size}/${HIGH}`;
          return;
        }
        await sleep(20);
      }
    };
    await waitFor(() => sink.campaign.length > 0, 'the first send');
    const first = sink.campaign[0];
    await waitFor(() => epochMs() >= first + WARM_UP_MS, 'the warm-up');
    const rate = sink.campaign.length / ((epochMs() - first) / 1000);
    // Over the first third of what the warm-up's rate leaves: the campaign may slow down later.
    const spacing = ((RECIPIENTS - sink.campaign.length) / rate / 3 / HIGH) * 1000;
    const requested = new Map<string, number>();
    const requests: Array<Promise<void>> = [];
    const start = epochMs();
    for (let n = 0; n < HIGH && !stalled; n++) {
      const to = `+3377${String(n).padStart(7, '0')}`;
      await sleep(Math.max(0, start + n * spacing - epochMs()));
      requested.set(to.slice(1), epochMs());
      requests.push(
        fetch(
          `http://127.0.0.1:${port}/api/send-sms/?to=${encodeURIComponent(to)}&text=Code%201234&id_phone=${phone}&priority=high`,
          { headers: { 'X-Api-Key': API_KEY } },
        ).then(async (response) => {
          await response.arrayBuffer();
          if (response.status !== 200) {
            throw new Error(`get_send_sms answered ${response.status}`);
          }
        }),
      );
    }
    await Promise.all(requests);
    await waitFor(() => sink.arrivals.size >= HIGH, 'the high sends');
    const highEnd = Math.max(...sink.arrivals.values());
    await waitFor(() => sink.campaign.length >= RECIPIENTS, 'the campaign');
    const last = sink.campaign[sink.campaign.length - 1];
    const within = (from: number, to: number) =>
      sink.campaign.filter((at) => at >= from && at < to).length;
    // The high sends' span, within the campaign's.
    const end = Math.min(highEnd, last);
    const before = within(first, start);
    const during = within(start, end);
    const after = within(end, last + 1);
    const latencies = [...requested]
      .flatMap(([to, at]) => {
        const arrived = sink.arrivals.get(to);
        return arrived === undefined ? [] : [arrived - at];
      })
      .sort((a, b) => a - b);
    await sleep(1000);
    const [{ n }] = await ds.query<Array<{ n: number | string }>>(
      'SELECT COUNT(*) AS n FROM sended',
    );
    return {
      engine: engine.name,
      setup: engine.workers ? `API (WORKER=off) + ${engine.workers.name}` : 'API, inline worker',
      latencies,
      missing: HIGH - latencies.length,
      withRate: during / ((end - start) / 1000),
      withoutRate: (before + after) / ((start - first + last - end) / 1000),
      beforeRate: before / ((start - first) / 1000),
      afterRate: last > end ? after / ((last - end) / 1000) : NaN,
      highAfterCampaign: highEnd > last,
      campaignSeconds: (last - first) / 1000,
      sended: Number(n),
      load,
      stalled,
    };
  } finally {
    await stopDispatchers(children);
    await sink.smsc.stop();
    await ds.destroy();
    await database.drop();
  }
}

/** The nearest-rank percentile `p` (0 to 100) of ascending `values`. */
function percentile(values: readonly number[], p: number): number {
  return values[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] ?? NaN;
}

export async function runPriority(): Promise<void> {
  const only = process.env.BENCH_ENGINES?.split(',');
  const engines: Engine[] = [{ name: 'SQLite', target: 'sqlite', workers: null }];
  if (MYSQL !== 'off') {
    engines.push({
      name: 'MariaDB',
      target: MYSQL,
      workers: { name: '3 worker processes', script: 'worker.js', processes: 3, env: {} },
    });
  }
  const results: Result[] = [];
  for (const engine of engines.filter(({ name }) => !only || only.includes(name))) {
    results.push(await run(engine));
  }
  const fixed = (value: number, digits: number) => value.toFixed(digits);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Priority: ${HIGH} get_send_sms with priority=high through the phone of a ${RECIPIENTS}-recipient normal campaign (SMPP, fake SMSC on 127.0.0.1)`,
  );
  out('');
  out(
    '| engine | setup | high: p50 ms | p99 ms | max ms | campaign/s with the high sends | without (before; after) | campaign s | sended | load average at start |',
  );
  out('|---|---|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const r of results) {
    out(
      `| ${r.engine} | ${r.setup} | ${fixed(percentile(r.latencies, 50), 0)} | ${fixed(percentile(r.latencies, 99), 0)} | ${fixed(r.latencies[r.latencies.length - 1] ?? NaN, 0)} | ${fixed(r.withRate, 0)} | ${fixed(r.withoutRate, 0)} (${fixed(r.beforeRate, 0)}; ${fixed(r.afterRate, 0)}) | ${fixed(r.campaignSeconds, 1)} | ${r.sended} | ${fixed(r.load, 1)} |`,
    );
  }
  out('');
  for (const r of results) {
    const p99 = percentile(r.latencies, 99);
    out(
      `${r.engine}: p99 ≤ ${TARGET_P99_MS} ms ${p99 <= TARGET_P99_MS ? '✔' : '✘'}, ` +
        `${r.latencies.length}/${HIGH} high sends arrived, sended ${r.sended}/${RECIPIENTS + HIGH} ` +
        `${r.sended === RECIPIENTS + HIGH && r.missing === 0 ? '✔' : '✘'}` +
        (r.highAfterCampaign ? '; some high sends arrived after the campaign ended' : '') +
        (r.stalled ? `; stalled: ${r.stalled}` : ''),
    );
  }
}

if (require.main === module) {
  process.stdout.write(machineLine());
  runPriority().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
