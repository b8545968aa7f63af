import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Agent, fetch } from 'undici';
import { generateApiKey, hashApiKey } from '../src/common/auth/api-key';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { AppConfig } from '../src/config/configuration';
import { validateEnvironment } from '../src/config/env.validation';
import { migrate, openDataSource } from '../src/database/data-source';
import { OVERALL, PER_ORIGIN } from '../src/webhook-delivery/webhook-deliverer.service';
import { BuiltApp, startBuiltApp } from '../test/support/built-app';
import { BenchDatabase, createBenchDatabase } from './database';

/*
 * bench:webhooks (issue 12, point 5): `receive_sms` events per second from reception callbacks
 * to a local receiver, on SQLite with the API process's inline worker and on MariaDB with the
 * API at WORKER=off and 1 and 3 `node dist/worker.js` processes.
 *
 * Each run: a user, a `test` phone (seeded as bench/seed.ts does) and one `receive_sms` webhook
 * (created by post_webhook) towards a receiver in a worker thread of this process.
 *
 * - Phase 1: BENCH_EVENTS reception callbacks (POST /callback/reception/test/{phone}/, form
 *   fields origin and text), BENCH_CALLBACK_CONNECTIONS at a time, with no worker running: each
 *   callback commits its message and its event. Timed: callbacks/s.
 * - Phase 2: the worker(s) start (SQLite: the API restarted with WORKER=inline; MariaDB: the
 *   worker processes). The receiver holds the first requests until every process has PER_ORIGIN
 *   of them in flight, so that their boot is not part of the rate; then it answers, and the clock
 *   runs until it has seen every event id (webhook_random_id): events/s, the CPU time the
 *   delivering processes spent per 1,000 events, and receipts beyond the distinct ids
 *   (duplicates).
 * - Live (BENCH_MODES includes `live`): the worker runs from the start and the callbacks are
 *   fired while it delivers; the clock runs from the first callback to the last distinct id.
 *
 * With a receiver that takes BENCH_SLOW_MS (200) per request, BENCH_SLOW_EVENTS events (1000)
 * as in phase 2: the rate that bounded concurrency reaches, beside processes × PER_ORIGIN /
 * delay. The baseline, measured in the same run: the same receiver hit directly by a plain loop
 * of the same POST (a body the deliverer sent) with PER_ORIGIN × processes requests in flight,
 * over undici as the deliverer: what the network path alone allows.
 *
 * Runs the built processes: `npm run build` first. BENCH_MYSQL_URL (default
 * mysql://root@127.0.0.1:3306/test, "off" to skip; a scratch database is created and dropped),
 * BENCH_EVENTS (10000), BENCH_ENGINES (SQLite,MariaDB), BENCH_ROUNDS (1: the whole table again),
 * BENCH_MODES (backlog,live,slow). DISPATCH_POLL_MS is left at its default (500 ms): a busy
 * deliverer does not wait for it, an ended request wakes it. WEBHOOK_TIMEOUT_MS is 60000 so
 * that the requests held while the workers boot do not time out.
 */

const DIST = join(__dirname, '..', 'dist');
const MYSQL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const SLOW_EVENTS = Number(process.env.BENCH_SLOW_EVENTS ?? 1000);
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? 200);
const CALLBACK_CONNECTIONS = Number(process.env.BENCH_CALLBACK_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const MODES = (process.env.BENCH_MODES ?? 'backlog,live,slow').split(',');
const STAMP = '2020-01-01 00:00:00';
/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;

/** The receiver, plain JavaScript run in a worker thread: its event loop is its own. */
const RECEIVER = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
let delayMs = 0;
let gated = false;
let held = [];
let receipts = 0;
let ids = new Set();
let target = Infinity;
let sample = null;
const answer = (response) => {
  if (delayMs > 0) {
    setTimeout(() => response.end(), delayMs);
  } else {
    response.end();
  }
};
const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    receipts += 1;
    const id = new URLSearchParams(body).get('webhook_random_id');
    if (id !== null && !request.url.startsWith('/baseline')) {
      if (sample === null) {
        sample = body;
      }
      ids.add(id);
      if (ids.size === target) {
        target = Infinity;
        parentPort.postMessage({ done: Date.now() });
      }
    }
    if (gated) {
      held.push(response);
    } else {
      answer(response);
    }
  });
});
server.keepAliveTimeout = 120000;
parentPort.on('message', (command) => {
  if (command.reset) {
    receipts = 0;
    ids = new Set();
    delayMs = command.delayMs;
    gated = command.gated;
    target = command.target;
    held = [];
  } else if (command.open) {
    gated = false;
    const now = Date.now();
    held.splice(0).forEach(answer);
    parentPort.postMessage({ opened: now });
    return;
  }
  parentPort.postMessage({ receipts, distinct: ids.size, held: held.length, sample });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

interface ReceiverState {
  receipts: number;
  distinct: number;
  held: number;
  sample: string | null;
}

class Receiver {
  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const worker = new Worker(RECEIVER, { eval: true });
    const [{ port }] = (await once(worker, 'message')) as [{ port: number }];
    return new Receiver(worker, `http://127.0.0.1:${port}`);
  }

  /** Forgets what it saw; `target` distinct ids resolve `done()` with when the last came. */
  async reset(delayMs: number, gated: boolean, target: number): Promise<void> {
    await this.ask({ reset: true, delayMs, gated, target });
  }

  state(): Promise<ReceiverState> {
    return this.ask({});
  }

  /** Answers what it holds and every request from now on; the time it did (ms). */
  async open(): Promise<number> {
    return (await this.ask<{ opened: number }>({ open: true })).opened;
  }

  /** When (ms) the target of distinct ids was reached. */
  async done(): Promise<number> {
    for (;;) {
      const [message] = (await once(this.worker, 'message')) as [{ done?: number }];
      if (message.done !== undefined) {
        return message.done;
      }
    }
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private async ask<T = ReceiverState>(command: object): Promise<T> {
    for (;;) {
      const answered = once(this.worker, 'message');
      this.worker.postMessage(command);
      const [message] = (await answered) as [T & { done?: number }];
      if (message.done === undefined) {
        return message;
      }
    }
  }
}

/** CPU seconds a process has used, all its threads (user and system, /proc in clock ticks). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` calls of `task`, `concurrency` at a time; seconds taken. */
async function pool(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        await task(next++);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

interface Setup {
  engine: string;
  target: string;
  name: string;
  /** Dispatching processes: the API inline (SQLite) or worker processes. */
  processes: number;
  inline: boolean;
}

interface Scenario {
  database: BenchDatabase;
  api: BuiltApp;
  env: Record<string, string>;
  apiKey: string;
  phone: number;
}

/** Migrated scratch database, a user and a phone, the API (WORKER=off) and the webhook. */
async function prepare(setup: Setup, receiver: Receiver, inlineNow: boolean): Promise<Scenario> {
  const database = await createBenchDatabase(setup.target);
  const env = {
    DATABASE_URL: database.url,
    DATA_DIR: database.dataDir,
    LOG_LEVEL: 'warn',
    WEBHOOK_TIMEOUT_MS: '60000',
  };
  const config = new AppConfig(validateEnvironment({ ...env, LOG_LEVEL: 'silent' }));
  const ds = await openDataSource(config.database, secretCipher(config));
  const apiKey = generateApiKey();
  let phone: number;
  try {
    await migrate(ds);
    await ds.query(
      "INSERT INTO user (id, email, api_key_hash, admin, status, created_at) VALUES (1, 'bench@example.test', ?, 0, 'active', ?)",
      [hashApiKey(apiKey), STAMP],
    );
    await ds.query(
      "INSERT INTO phone (id, id_user, name, adapter, adapter_data, priority, status, created_at) VALUES (1, 1, 'bench', 'test', '{}', 0, 'available', ?)",
      [STAMP],
    );
    phone = 1;
  } finally {
    await ds.destroy();
  }
  const api = await startBuiltApp(
    { ...env, WORKER: inlineNow ? 'inline' : 'off' },
    database.dataDir,
  );
  const created = await fetch(`${api.url}/api/webhook/`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url: `${receiver.url}/hook`, type: 'receive_sms' }).toString(),
  });
  if (created.status !== 201) {
    throw new Error(`post_webhook answered ${created.status}: ${await created.text()}`);
  }
  return { database, api, env, apiKey, phone };
}

/** Fires `count` reception callbacks; seconds taken. */
async function fireCallbacks(scenario: Scenario, count: number): Promise<number> {
  const agent = new Agent({ connections: CALLBACK_CONNECTIONS });
  const url = `${scenario.api.url}/callback/reception/test/${scenario.phone}/?api_key=${scenario.apiKey}`;
  try {
    return await pool(count, CALLBACK_CONNECTIONS, async (index) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          origin: `+336${10_000_000 + index}`,
          text: `Bench message ${index}`,
        }).toString(),
        dispatcher: agent,
      });
      await answer.arrayBuffer();
      if (answer.status !== 200) {
        throw new Error(`The reception callback answered ${answer.status}`);
      }
    });
  } finally {
    await agent.close();
  }
}

/** The dispatching processes of `setup`, started on the scenario's database. */
async function startDelivering(
  setup: Setup,
  scenario: Scenario,
): Promise<{ pids: number[]; stop: () => Promise<void> }> {
  if (setup.inline) {
    // SQLite: the API again, now with its inline worker (one worker per SQLite database).
    await scenario.api.stop();
    scenario.api = await startBuiltApp(
      { ...scenario.env, WORKER: 'inline' },
      scenario.database.dataDir,
    );
    return { pids: [scenario.api.pid], stop: () => Promise.resolve() };
  }
  const children: ChildProcess[] = [];
  for (let i = 0; i < setup.processes; i++) {
    children.push(
      spawn(process.execPath, [join(DIST, 'worker.js')], {
        cwd: scenario.database.dataDir,
        env: { PATH: process.env.PATH ?? '', ...scenario.env, PORT: '0', HOST: '127.0.0.1' },
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
  }
  return {
    pids: children.map((child) => child.pid ?? 0),
    stop: async () => {
      await Promise.all(
        children.map(async (child) => {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          await exited;
        }),
      );
    },
  };
}

interface Delivered {
  callbacksPerSecond: number;
  seconds: number;
  rate: number;
  duplicates: number;
  cpuMsPerThousand: number;
  sample: string | null;
}

/**
 * Phase 1 then phase 2 (`live` false), or both at once (`live`), with a receiver answering
 * after `delayMs`.
 */
async function deliveryRun(
  setup: Setup,
  receiver: Receiver,
  events: number,
  delayMs: number,
  live: boolean,
): Promise<Delivered> {
  const scenario = await prepare(setup, receiver, live && setup.inline);
  let delivering: { pids: number[]; stop: () => Promise<void> } | null = null;
  try {
    await receiver.reset(delayMs, !live, events);
    const done = receiver.done();
    let started: number;
    let callbackSeconds: number;
    let cpuBefore = 0;
    const cpu = () => (delivering?.pids ?? []).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    if (live) {
      delivering = setup.inline
        ? { pids: [scenario.api.pid], stop: () => Promise.resolve() }
        : await startDelivering(setup, scenario);
      await waitForWorkers(scenario, setup.processes);
      cpuBefore = cpu();
      started = Date.now();
      callbackSeconds = await fireCallbacks(scenario, events);
    } else {
      callbackSeconds = await fireCallbacks(scenario, events);
      delivering = await startDelivering(setup, scenario);
      const wanted = Math.min(events, setup.processes * PER_ORIGIN);
      const deadline = Date.now() + 60_000;
      while ((await receiver.state()).held < wanted) {
        if (Date.now() > deadline) {
          throw new Error(`The receiver never held ${wanted} requests`);
        }
        await sleep(20);
      }
      cpuBefore = cpu();
      started = await receiver.open();
    }
    const finished = await done;
    const cpuUsed = cpu() - cpuBefore;
    // Late duplicates, if any, have a moment to arrive.
    await sleep(500);
    const state = await receiver.state();
    const seconds = (finished - started) / 1000;
    return {
      callbacksPerSecond: events / callbackSeconds,
      seconds,
      rate: events / seconds,
      duplicates: state.receipts - state.distinct,
      cpuMsPerThousand: (cpuUsed * 1e6) / events,
      sample: state.sample,
    };
  } finally {
    await delivering?.stop();
    await scenario.api.stop();
    await scenario.database.drop();
  }
}

async function waitForWorkers(scenario: Scenario, processes: number): Promise<void> {
  const config = new AppConfig(validateEnvironment({ ...scenario.env, LOG_LEVEL: 'silent' }));
  const ds = await openDataSource(config.database, secretCipher(config));
  try {
    for (;;) {
      const [row] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM worker',
      );
      if (Number(row.n) >= processes) {
        return;
      }
      await sleep(50);
    }
  } finally {
    await ds.destroy();
  }
}

/** The receiver hit by a plain loop of `body`, `concurrency` in flight: requests/s. */
async function baseline(
  receiver: Receiver,
  body: string,
  count: number,
  concurrency: number,
  delayMs: number,
): Promise<number> {
  await receiver.reset(delayMs, false, Infinity);
  const agent = new Agent();
  try {
    const seconds = await pool(count, concurrency, async () => {
      const answer = await fetch(`${receiver.url}/baseline`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        dispatcher: agent,
      });
      await answer.arrayBuffer();
    });
    return count / seconds;
  } finally {
    await agent.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `bench:webhooks on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ` +
      `PER_ORIGIN ${PER_ORIGIN}, OVERALL ${OVERALL}; ${EVENTS} events, ${CALLBACK_CONNECTIONS} callback connections; ` +
      `load average ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')}\n\n`,
  );
  const only = process.env.BENCH_ENGINES?.split(',');
  const setups: Setup[] = [
    {
      engine: 'SQLite',
      target: 'sqlite',
      name: 'inline (API process)',
      processes: 1,
      inline: true,
    },
  ];
  if (MYSQL !== 'off') {
    setups.push(
      { engine: 'MariaDB', target: MYSQL, name: '1 worker process', processes: 1, inline: false },
      { engine: 'MariaDB', target: MYSQL, name: '3 worker processes', processes: 3, inline: false },
    );
  }
  const chosen = setups.filter((setup) => !only || only.includes(setup.engine));
  const receiver = await Receiver.start();
  const fast: string[] = [];
  const slow: string[] = [];
  let body: string | null = null;
  const baselines = new Map<string, number>();
  /** The baseline at this concurrency and delay, measured once per round. */
  const baselineFor = async (concurrency: number, delayMs: number, count: number) => {
    const key = `${concurrency}/${delayMs}`;
    if (!baselines.has(key)) {
      baselines.set(key, await baseline(receiver, body ?? '', count, concurrency, delayMs));
    }
    return baselines.get(key)!;
  };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      baselines.clear();
      for (const setup of chosen) {
        const label = `${setup.engine} ${setup.name}`;
        const concurrency = PER_ORIGIN * setup.processes;
        for (const mode of MODES.filter((mode) => mode !== 'slow')) {
          const run = await deliveryRun(setup, receiver, EVENTS, 0, mode === 'live');
          body ??= run.sample;
          const base = await baselineFor(concurrency, 0, EVENTS);
          fast.push(
            `| ${round} | ${label} | ${mode} | ${run.callbacksPerSecond.toFixed(0)} | ${run.seconds.toFixed(2)} | ` +
              `${run.rate.toFixed(0)} | ${run.duplicates} | ${run.cpuMsPerThousand.toFixed(0)} | ` +
              `${base.toFixed(0)} | ${(run.rate / base).toFixed(2)} |`,
          );
          process.stderr.write(`${fast[fast.length - 1]}\n`);
        }
        if (MODES.includes('slow')) {
          const run = await deliveryRun(setup, receiver, SLOW_EVENTS, SLOW_MS, false);
          body ??= run.sample;
          const bound = (setup.processes * PER_ORIGIN) / (SLOW_MS / 1000);
          const base = await baselineFor(concurrency, SLOW_MS, SLOW_EVENTS);
          slow.push(
            `| ${round} | ${label} | ${SLOW_EVENTS} | ${run.seconds.toFixed(2)} | ${run.rate.toFixed(1)} | ` +
              `${bound.toFixed(0)} | ${(run.rate / bound).toFixed(2)} | ${base.toFixed(1)} | ` +
              `${(run.rate / base).toFixed(2)} | ${run.duplicates} |`,
          );
          process.stderr.write(`${slow[slow.length - 1]}\n`);
        }
      }
    }
  } finally {
    await receiver.stop();
  }
  process.stdout.write(
    `Receiver answering at once (${EVENTS} receive_sms events):\n\n` +
      '| round | setup | mode | callbacks/s | delivery s | events/s | duplicates | CPU ms per 1,000 | baseline req/s | ratio |\n' +
      '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n' +
      fast.map((line) => `${line}\n`).join(''),
  );
  if (slow.length > 0) {
    process.stdout.write(
      `\nReceiver taking ${SLOW_MS} ms per request:\n\n` +
        '| round | setup | events | delivery s | events/s | bound (processes × PER_ORIGIN / delay) | ratio | baseline req/s | ratio | duplicates |\n' +
        '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n' +
        slow.map((line) => `${line}\n`).join(''),
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
