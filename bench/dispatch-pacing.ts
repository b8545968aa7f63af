import { once } from 'node:events';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { adapterDataScope } from '../src/common/secrets/adapter-data-scope';
import { sealFields } from '../src/common/secrets/sealed-fields';
import { SecretCipher } from '../src/common/secrets/secret-cipher';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { migrate, openDataSource } from '../src/database/data-source';
import { createBenchDatabase } from './database';
import {
  MYSQL,
  SQLITE_INLINE,
  Setup,
  WORKERS_3,
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

/*
 * bench:dispatch, pacing scenario (issue 13, point 4): one user with two phones. P is paced
 * (`phone.rate`) and sends through the `kannel` adapter to a fake Kannel smsbox that this bench
 * runs on 127.0.0.1, in a worker thread of its own so that the bench's polling does not delay
 * its clock; it stamps each request's arrival (performance.timeOrigin + performance.now()). Q is
 * unpaced, on the `benchmark` adapter: the dispatch's full speed, with no provider in the way.
 * One message to rate × seconds recipients pinned to P and one to BENCH_PACING_Q recipients
 * pinned to Q become due together once the dispatching processes are up. Q's campaign also runs
 * alone, before and after, for its baseline: other jobs on the machine move its rate between runs.
 * On MariaDB with 3 worker processes, on SQLite with the inline worker.
 *
 * P: observed rate (n − 1) / (last − first) over its arrivals, the most arrivals in any 1-second
 * window ([t, t + 1 s) starting at each arrival: exact), the most in any 10-second window / 10,
 * the gaps between consecutive arrivals, and each arrival against the even schedule from the
 * first one; its `sended` entries by status (an accepted Kannel send is recorded `unknown` until
 * a delivery report: `error` says whether the send itself failed), its outbox rows left, and the
 * sends the processes logged as having missed their slot (their other warnings are counted too).
 * Q: recipients/s from the moment the messages are due to its last `sended` entry (polled every
 * 50 ms), with P's campaign and alone. A run whose `sended` entries stop growing for 60 s is
 * reported as stalled, with what it got.
 *
 * Runs the built processes: `npm run build` first. `npm run bench:dispatch` runs it after the
 * throughput scenario; BENCH_SCENARIOS=pacing runs it alone (or `ts-node --transpile-only
 * bench/dispatch-pacing.ts`). BENCH_MYSQL_URL, BENCH_ENGINES and BENCH_POLL_MS as for the
 * throughput scenario; BENCH_PACING_RATE (default 50, messages per second, decimal),
 * BENCH_PACING_SECONDS (default 36: P has rate × seconds recipients), BENCH_PACING_Q (default
 * 60000, Q's recipients).
 */

const RATE = Number(process.env.BENCH_PACING_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_PACING_SECONDS ?? 36);
const P_RECIPIENTS = Math.round(RATE * SECONDS);
const Q_RECIPIENTS = Number(process.env.BENCH_PACING_Q ?? 60_000);
const TEXT = 'Hello {{ contact.firstname }}';
/** Secret fields of the kannel adapter's descriptor: stored sealed, as the API would. */
const KANNEL_SECRETS = ['password'];
/** Progress polls with no new `sended` entry before the run is given up as stalled. */
const STALL_MS = 60_000;
/** The rate's tolerance of the issue. */
const TOLERANCE = 0.05;

/** The fake Kannel, plain JavaScript run in a worker thread: its event loop is its own. */
const FAKE_KANNEL = `
const { createServer } = require('node:http');
const { performance } = require('node:perf_hooks');
const { parentPort } = require('node:worker_threads');
let times = [];
let receivers = new Set();
let others = 0;
const server = createServer((request, response) => {
  const at = performance.timeOrigin + performance.now();
  const to = new URL(request.url, 'http://fake').searchParams.get('to');
  if (to === null) {
    // The adapter's check calls sendsms without a receiver: Kannel answers 4xx, not 403.
    others += 1;
    response.writeHead(400, { 'content-type': 'text/plain' });
    response.end('Receiver missing');
    return;
  }
  times.push(at);
  receivers.add(to);
  response.writeHead(202, { 'content-type': 'text/plain' });
  response.end('0: Accepted for delivery');
});
server.keepAliveTimeout = 120000;
parentPort.on('message', (command) => {
  const state = { times, distinct: receivers.size, others };
  if (command.reset) {
    times = [];
    receivers = new Set();
    others = 0;
  }
  parentPort.postMessage(state);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

interface FakeState {
  /** Epoch milliseconds of each sendsms request with a receiver, in arrival order. */
  times: number[];
  /** Distinct receivers among them: fewer than times means a recipient sent twice. */
  distinct: number;
  /** Requests without a receiver (the adapter's checks). */
  others: number;
}

class FakeKannel {
  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeKannel> {
    const worker = new Worker(FAKE_KANNEL, { eval: true });
    const [{ port }] = (await once(worker, 'message')) as [{ port: number }];
    return new FakeKannel(worker, `http://127.0.0.1:${port}/cgi-bin/sendsms`);
  }

  /** What it saw since the last take, forgotten. */
  async take(): Promise<FakeState> {
    const answered = once(this.worker, 'message');
    this.worker.postMessage({ reset: true });
    return ((await answered) as [FakeState])[0];
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

interface Run {
  /** P's arrivals at the fake, sorted, epoch ms. */
  times: number[];
  distinct: number;
  others: number;
  /** Load average (1 min) when the messages were made due: other jobs share the machine. */
  load: number;
  /** Epoch ms at which the messages were made due. */
  released: number;
  qSeconds: number;
  /** Q's `sended` entries at the end, and their distinct destinations. */
  qSended: { n: number; distinct: number };
  pStatuses: Array<{ status: string; n: number; errors: number }>;
  /** P's outbox rows left at the end, by state. */
  pLeft: Array<{ state: string; n: number }>;
  /** Sends the processes logged as having missed their sending slot (requeued). */
  missed: number;
  /** The processes' other warnings, by message. */
  warnings: Map<string, number>;
  stalled: string | null;
}

/** The sender's warning when a lane gives slots up (src/dispatch/sender.service.ts). */
const MISSED = /^(\d+) send\(s\) through phone \d+ missed their sending slot/;

const epochMs = () => performance.timeOrigin + performance.now();

/** P's phone on the kannel adapter towards the fake, its secret sealed for its scope. */
async function seedKannelPhone(
  ds: DataSource,
  cipher: SecretCipher,
  user: number,
  url: string,
): Promise<number> {
  const phone = await seedPhone(ds, user, 'paced', 'kannel');
  const data = sealFields(
    cipher,
    KANNEL_SECRETS,
    { kannel_sendsms_url: url, username: 'bench', password: 'bench', from: 'smsgw' },
    adapterDataScope({ id: phone, id_user: user }),
  );
  await ds.query('UPDATE phone SET adapter_data = ?, rate = ? WHERE id = ?', [
    JSON.stringify(data),
    RATE,
    phone,
  ]);
  return phone;
}

async function pacingRun(
  target: string,
  setup: Setup,
  fake: FakeKannel,
  withP: boolean,
): Promise<Run> {
  const database = await createBenchDatabase(target);
  const config = configFor(database);
  const cipher = secretCipher(config);
  const ds = await openDataSource(config.database, cipher);
  let children: Awaited<ReturnType<typeof startDispatchers>> = [];
  try {
    await migrate(ds);
    const user = await seedUser(ds);
    const p = await seedKannelPhone(ds, cipher, user, fake.url);
    const q = await seedPhone(ds, user, 'unpaced', 'benchmark');
    if (withP) {
      await seedMessages(ds, user, p, P_RECIPIENTS, TEXT, 'one', 20_000_000);
    }
    await seedMessages(ds, user, q, Q_RECIPIENTS, TEXT, 'one', 10_000_000);
    let missed = 0;
    const warnings = new Map<string, number>();
    children = await startDispatchers(ds, database, setup, (line) => {
      let message = line;
      try {
        const { msg } = JSON.parse(line) as { msg?: unknown };
        message = typeof msg === 'string' ? msg : line;
      } catch {
        // Not pino's JSON: the line as it is.
      }
      // One count per message whatever the process.
      message = message.replace(/^Dispatch worker \S+: /, 'Dispatch worker …: ');
      const slots = MISSED.exec(message);
      if (slots) {
        missed += Number(slots[1]);
      } else {
        warnings.set(message, (warnings.get(message) ?? 0) + 1);
      }
    });
    await fake.take();
    const load = loadavg()[0];
    const released = epochMs();
    await releaseMessages(ds);
    let qSeconds = NaN;
    let stalled: string | null = null;
    let last = { p: -1, q: -1, at: Date.now() };
    for (;;) {
      const counts = new Map(
        (
          await ds.query<Array<{ id_phone: number; n: number | string }>>(
            'SELECT id_phone, COUNT(*) AS n FROM sended GROUP BY id_phone',
          )
        ).map((row) => [Number(row.id_phone), Number(row.n)]),
      );
      const now = { p: counts.get(p) ?? 0, q: counts.get(q) ?? 0, at: Date.now() };
      if (Number.isNaN(qSeconds) && now.q >= Q_RECIPIENTS) {
        qSeconds = (epochMs() - released) / 1000;
      }
      if (now.q >= Q_RECIPIENTS && (!withP || now.p >= P_RECIPIENTS)) {
        break;
      }
      if (now.p !== last.p || now.q !== last.q) {
        last = now;
      } else if (now.at - last.at > STALL_MS) {
        stalled = `no progress for ${STALL_MS / 1000} s: P ${now.p}/${withP ? P_RECIPIENTS : 0}, Q ${now.q}/${Q_RECIPIENTS} in sended`;
        break;
      }
      await sleep(50);
    }
    const { times, distinct, others } = await fake.take();
    const pStatuses = (
      await ds.query<Array<{ status: string; n: number | string; errors: number | string }>>(
        'SELECT status, COUNT(*) AS n, SUM(CASE WHEN error IS NULL THEN 0 ELSE 1 END) AS errors ' +
          'FROM sended WHERE id_phone = ? GROUP BY status ORDER BY status',
        [p],
      )
    ).map((row) => ({ status: row.status, n: Number(row.n), errors: Number(row.errors) }));
    const [qRow] = await ds.query<Array<{ n: number | string; d: number | string }>>(
      'SELECT COUNT(*) AS n, COUNT(DISTINCT destination) AS d FROM sended WHERE id_phone = ?',
      [q],
    );
    const qSended = { n: Number(qRow.n), distinct: Number(qRow.d) };
    const pLeft = (
      await ds.query<Array<{ state: string; n: number | string }>>(
        'SELECT state, COUNT(*) AS n FROM outbox WHERE id_phone = ? GROUP BY state ORDER BY state',
        [p],
      )
    ).map((row) => ({ state: row.state, n: Number(row.n) }));
    return {
      times: [...times].sort((a, b) => a - b),
      distinct,
      others,
      load,
      released,
      qSeconds,
      qSended,
      pStatuses,
      pLeft,
      missed,
      warnings,
      stalled,
    };
  } finally {
    await stopDispatchers(children);
    await ds.destroy();
    await database.drop();
  }
}

/** The most of the sorted `times` in any window [t, t + width) (ms): each arrival starts one. */
export function maxInWindow(times: readonly number[], width: number): number {
  let most = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && times[end] < times[start] + width) {
      end++;
    }
    most = Math.max(most, end - start);
  }
  return most;
}

/** Arrivals that start a 1-second window holding more than the rate, and the first one's index. */
function windowsOver(times: readonly number[]): { count: number; first: number } {
  let count = 0;
  let first = -1;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && times[end] < times[start] + 1000) {
      end++;
    }
    if (end - start > RATE) {
      count++;
      first = first < 0 ? start : first;
    }
  }
  return { count, first };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

interface PStats {
  n: number;
  seconds: number;
  rate: number;
  max1: number;
  max10: number;
  gaps: number[];
  /** Arrival minus its place on the even schedule from the first arrival, ms. */
  lateness: number[];
  firstAfterMs: number;
}

function pStats(run: Run): PStats {
  const { times } = run;
  const n = times.length;
  const seconds = n > 1 ? (times[n - 1] - times[0]) / 1000 : 0;
  const interval = 1000 / RATE;
  return {
    n,
    seconds,
    rate: n > 1 ? (n - 1) / seconds : NaN,
    max1: maxInWindow(times, 1000),
    max10: maxInWindow(times, 10_000) / 10,
    gaps: times
      .slice(1)
      .map((time, index) => time - times[index])
      .sort((a, b) => a - b),
    lateness: times.map((time, index) => time - (times[0] + index * interval)),
    firstAfterMs: n > 0 ? times[0] - run.released : NaN,
  };
}

/** How many of the run's P arrivals fell in each whole second after the messages were due. */
function perSecond(run: Run): number[] {
  const counts: number[] = [];
  for (const time of run.times) {
    const second = Math.max(0, Math.floor((time - run.released) / 1000));
    while (counts.length <= second) {
      counts.push(0);
    }
    counts[second]++;
  }
  return counts;
}

const mark = (ok: boolean) => (ok ? '✔' : '✘');
const fixed = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      })
    : '—';

/** The pacing scenario on each engine of BENCH_ENGINES; prints its tables. */
export async function runPacing(): Promise<void> {
  const only = process.env.BENCH_ENGINES?.split(',');
  const engines: Array<[string, string, Setup]> = [['SQLite', 'sqlite', SQLITE_INLINE]];
  if (MYSQL !== 'off') {
    engines.push(['MariaDB', MYSQL, WORKERS_3]);
  }
  const fake = await FakeKannel.start();
  const results: Array<{ setup: string; paced: Run; alone: [Run, Run]; stats: PStats }> = [];
  try {
    for (const [engine, target, setup] of engines.filter(
      ([name]) => !only || only.includes(name),
    )) {
      // Q alone before and after: other jobs on the machine move its rate between runs.
      const before = await pacingRun(target, setup, fake, false);
      const paced = await pacingRun(target, setup, fake, true);
      const after = await pacingRun(target, setup, fake, false);
      const alone: [Run, Run] = [before, after];
      results.push({ setup: `${engine} ${setup.name}`, paced, alone, stats: pStats(paced) });
    }
  } finally {
    await fake.stop();
  }
  const interval = 1000 / RATE;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Pacing (issue 13): P paced at ${RATE}/s (kannel adapter → fake Kannel on 127.0.0.1), ` +
      `${P_RECIPIENTS.toLocaleString('en-US')} recipients; Q unpaced (benchmark adapter), ` +
      `${Q_RECIPIENTS.toLocaleString('en-US')} recipients; both due at once.\n`,
  );
  out(
    `| setup | P sends at the fake | over s | observed /s | ratio to ${RATE} | within 5 % | max in any 1 s (≤ ${RATE}) | max in any 10 s / 10 | first send after due, ms | P in sended by status |`,
  );
  out('|---|---:|---:|---:|---:|---|---:|---:|---:|---|');
  for (const { setup, paced, stats } of results) {
    const ratio = stats.rate / RATE;
    out(
      `| ${setup} | ${stats.n} | ${fixed(stats.seconds, 2)} ${mark(stats.seconds >= 30)} | ${fixed(stats.rate, 2)} | ${fixed(ratio, 3)} | ${mark(Math.abs(ratio - 1) <= TOLERANCE)} | ${stats.max1} ${mark(stats.max1 <= RATE)} | ${fixed(stats.max10, 1)} | ${fixed(stats.firstAfterMs, 0)} | ${paced.pStatuses.map((row) => `${row.status} ${row.n}${row.errors > 0 ? ` (${row.errors} with an error)` : ''}`).join(', ') || 'none'} |`,
    );
  }
  out('');
  out(
    `Gaps between consecutive P arrivals, ms (nominal ${fixed(interval, 1)}), and arrivals against the even schedule from the first one:\n`,
  );
  out(
    `| setup | min | p1 | p50 | p99 | max | < ${fixed(interval * 0.95, 1)} | ${fixed(interval * 0.95, 1)}–${fixed(interval * 1.05, 1)} | > ${fixed(interval * 1.05, 1)} | > ${fixed(interval * 2, 0)} | schedule: earliest / latest, ms | > ${fixed(interval, 0)} ms late |`,
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { setup, stats } of results) {
    const { gaps, lateness } = stats;
    const count = (predicate: (gap: number) => boolean) => gaps.filter(predicate).length;
    out(
      `| ${setup} | ${fixed(gaps[0], 1)} | ${fixed(quantile(gaps, 0.01), 1)} | ${fixed(quantile(gaps, 0.5), 1)} | ${fixed(quantile(gaps, 0.99), 1)} | ${fixed(gaps[gaps.length - 1], 1)} | ${count((gap) => gap < interval * 0.95)} | ${count((gap) => gap >= interval * 0.95 && gap <= interval * 1.05)} | ${count((gap) => gap > interval * 1.05)} | ${count((gap) => gap > interval * 2)} | ${fixed(Math.min(...lateness), 0)} / ${fixed(Math.max(...lateness), 0)} | ${lateness.filter((late) => late > interval).length} |`,
    );
  }
  out('');
  out(
    '| setup | Q recipients | with P: s | recipients/s | alone before; after: s | recipients/s | ratio to their mean | P sends while Q ran (/s) | load average at start (before; with P; after) |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const { setup, paced, alone } of results) {
    const withP = Q_RECIPIENTS / paced.qSeconds;
    const baseline = alone.map((run) => Q_RECIPIENTS / run.qSeconds);
    const qEnd = paced.released + paced.qSeconds * 1000;
    const during = paced.times.filter((time) => time <= qEnd).length;
    out(
      `| ${setup} | ${Q_RECIPIENTS} | ${fixed(paced.qSeconds, 2)} | ${fixed(withP, 0)} | ${alone.map((run) => fixed(run.qSeconds, 2)).join('; ')} | ${baseline.map((rate) => fixed(rate, 0)).join('; ')} | ${fixed((2 * withP) / (baseline[0] + baseline[1]), 2)} | ${during} (${fixed(during / paced.qSeconds, 1)}) | ${[alone[0], paced, alone[1]].map((run) => fixed(run.load, 1)).join('; ')} |`,
    );
  }
  out('');
  for (const { setup, paced, alone, stats } of results) {
    const accepted = paced.pStatuses
      .filter((row) => row.status !== 'failed')
      .reduce((sum, row) => sum + row.n - row.errors, 0);
    out(
      `${setup}: rate within 5 % ${mark(Math.abs(stats.rate / RATE - 1) <= TOLERANCE)}, ` +
        `never above ${RATE} in 1 s ${mark(stats.max1 <= RATE)}, over ≥ 30 s ${mark(stats.seconds >= 30)}, ` +
        `P recorded sent ${accepted}/${P_RECIPIENTS} ${mark(accepted === P_RECIPIENTS)}, ` +
        `${paced.distinct} distinct receivers in ${stats.n} requests at the fake ` +
        `${mark(paced.distinct === P_RECIPIENTS && stats.n === P_RECIPIENTS)}` +
        `${paced.others > 0 ? ` (and ${paced.others} checks without a receiver)` : ''}, ` +
        `Q's ${Q_RECIPIENTS} numbers each recorded once in its three runs ` +
        mark(
          [alone[0], paced, alone[1]].every(
            (run) => run.qSended.n === Q_RECIPIENTS && run.qSended.distinct === Q_RECIPIENTS,
          ),
        ),
    );
    const over = windowsOver(paced.times);
    if (over.count > 0) {
      out(
        `${setup}: ${over.count} arrivals start a 1-second window of more than ${RATE}; the first ` +
          `${fixed((paced.times[over.first] - paced.released) / 1000, 2)} s after due, its gaps (ms): ` +
          paced.times
            .slice(
              over.first + 1,
              over.first + 1 + maxInWindow(paced.times.slice(over.first), 1000),
            )
            .map((time, index) => fixed(time - paced.times[over.first + index], 1))
            .join(' '),
      );
    }
    out(
      `${setup}: P's sends in each second from the moment they were due: ${perSecond(paced).join(' ')}`,
    );
    out(
      `${setup}: ${paced.missed} P sends missed their slot and went back to the queue; P's outbox ` +
        `rows left: ${paced.pLeft.map((row) => `${row.state} ${row.n}`).join(', ') || 'none'}`,
    );
    for (const [name, run] of [
      ['alone before', alone[0]],
      ['with P', paced],
      ['alone after', alone[1]],
    ] as const) {
      if (run.stalled) {
        out(`${setup}, ${name}: stalled, ${run.stalled}`);
      }
      if (run.qSended.n !== Q_RECIPIENTS || run.qSended.distinct !== Q_RECIPIENTS) {
        out(
          `${setup}, ${name}: Q has ${run.qSended.n} sended entries for ${run.qSended.distinct} distinct numbers of ${Q_RECIPIENTS} ✘`,
        );
      }
      for (const [message, count] of run.warnings) {
        out(`${setup}, ${name}: logged ${count} × ${message}`);
      }
    }
  }
}

if (require.main === module) {
  process.stdout.write(machineLine());
  runPacing().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
