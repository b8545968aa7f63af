/*
 * npm run bench:api — latency and throughput of the API on the chosen database.
 *
 *   BENCH_DATABASE_URL=sqlite                                   (default: a temporary SQLite file)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/test          (a scratch database is created and dropped)
 *   BENCH_SIZES=10000,100000,1000000                            (sended rows seeded, default these three)
 *   BENCH_SECONDS=10                                            (duration of each throughput run)
 *   BENCH_ONLY=send-sms                                         (only get_send_sms throughput, at the first size,
 *                                                                and again with METRICS=off)
 *   BENCH_ONLY=campaign                                         (only latencies while a campaign dispatches)
 *   BENCH_ONLY=idempotency                                      (only get_send_sms with and without an
 *                                                                idempotency key, at the first size)
 *   BENCH_CAMPAIGN=100000                                       (its recipients)
 *   BENCH_ONLY=upload                                           (only latencies while a large numbers_csv, then
 *                                                                a contacts import, is received and written)
 *   BENCH_UPLOAD_ROWS=200000                                    (rows of those two files)
 *   BENCH_ROUNDS=1                                              (throughput runs per side, alternated)
 *   BENCH_CONNECTIONS=20                                        (concurrent clients of the throughput runs)
 *
 * For each size it seeds sent messages across users and phones, starts the real app and prints
 * p50/p99 of the read operations (a filtered page among them). At the first size it times a
 * contacts import of BENCH_IMPORT_LINES lines, new then updated. Then it measures requests/s of get_send_sms and post_scheduled
 * under concurrency (autocannon) next to a baseline measured in the same run: a bare node:http
 * handler doing the same key lookup and insert with the same driver, each request committed on
 * its own (smsgw commits the inserts of concurrent requests together: see DriverSql).
 *
 * BENCH_ONLY=send-sms also measures what the metrics cost: get_send_sms on the compiled app
 * (`dist/main.js`, built by the script) started twice over the same database, with METRICS=on
 * and METRICS=off, each in a process of its own as it runs in production (in one process, the
 * process metrics one app starts would run during the other's runs too); their runs alternated
 * in mirrored order (an even BENCH_ROUNDS, e.g. 10, lets each side run first as often), the CPU
 * that of the whole process (garbage collection threads included), and prints the ratios.
 *
 * At the first size it also measures get_send_sms with an idempotency key (a new one per request)
 * next to get_send_sms without one, in the same app, ROUNDS runs each alternated in mirrored
 * order, and prints the ratios (docs/idempotency.md: at most 15 % slower).
 *
 * BENCH_ONLY=campaign: p50/p99 of get_send_sms and of a read, one request at a time, while the
 * inline worker dispatches a campaign of BENCH_CAMPAIGN recipients through the `test` adapter,
 * next to the same requests with nothing to dispatch.
 *
 * BENCH_ONLY=upload: p50/p99/max of GET /health and get_send_sms, sent at a steady rate from a
 * worker thread, while post_scheduled receives a numbers_csv of BENCH_UPLOAD_ROWS rows (multipart,
 * as a client sends it) and while post_import_contacts receives a contacts_csv as long, next to
 * the same requests with no upload; ROUNDS of each, alternated, and how long each upload took.
 */
import { INestApplication } from '@nestjs/common';
import autocannon from 'autocannon';
import { openAsBlob, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { AppConfig } from '../src/config/configuration';
import { validateEnvironment } from '../src/config/env.validation';
import { migrate, openDataSource } from '../src/database/data-source';
import { rowMarks } from '../src/database/driver/placeholders';
import { BuiltApp, startBuiltApp } from '../test/support/built-app';
import { startBaseline } from './baseline';
import { BenchDatabase, createBenchDatabase } from './database';
import { seed, SeedResult } from './seed';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ONLY_SEND_SMS = process.env.BENCH_ONLY === 'send-sms';
const ONLY_CAMPAIGN = process.env.BENCH_ONLY === 'campaign';
const ONLY_IDEMPOTENCY = process.env.BENCH_ONLY === 'idempotency';
const ONLY_UPLOAD = process.env.BENCH_ONLY === 'upload';
const UPLOAD_ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 200_000);
const CAMPAIGN = Number(process.env.BENCH_CAMPAIGN ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const IMPORT_LINES = Number(process.env.BENCH_IMPORT_LINES ?? 100_000);
/** USER_HZ, the unit of the CPU times in /proc: 100 on x86 and ARM Linux. */
const CLOCK_TICKS_PER_SECOND = 100;
const SAMPLES = 200;

interface Latency {
  p50: number;
  p99: number;
}

async function measure(url: string, samples = SAMPLES, method = 'GET'): Promise<Latency> {
  for (let i = 0; i < 10; i += 1) {
    await fetchOk(url, method);
  }
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const start = performance.now();
    await fetchOk(url, method);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function fetchOk(url: string, method = 'GET'): Promise<void> {
  const response = await fetch(url, { method });
  const body = (await response.json()) as { error: number };
  if (!response.ok || body.error !== 0) {
    throw new Error(`${url} answered ${response.status} ${JSON.stringify(body)}`);
  }
}

/**
 * CPU time of this process's main thread so far, in µs, where Linux tells it: the servers run on
 * that thread and the load in a worker, so the difference over a run is the servers' work.
 * Unlike requests/s it hardly moves with what else runs on the machine. NaN elsewhere.
 */
function serverThreadCpuMicros(): number {
  return cpuMicros(`/proc/self/task/${process.pid}/stat`);
}

/** CPU time of every thread of process `pid` so far, in µs; NaN where Linux does not tell. */
function processCpuMicros(pid: number): number {
  return cpuMicros(`/proc/${pid}/stat`);
}

function cpuMicros(statFile: string): number {
  try {
    const stat = readFileSync(statFile, 'utf8');
    // Fields after the command's closing parenthesis: state is the 3rd, utime the 14th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

interface Load {
  /** Requests per second. */
  rate: number;
  /** CPU µs of the server thread per request. */
  cpu: number;
}

/** Where a load is sent, and how to read the CPU time (µs) of the server behind it. */
interface Target {
  url: string;
  cpu: () => number;
}

/** A server on this process's main thread. */
const inProcess = (url: string): Target => ({ url, cpu: serverThreadCpuMicros });

async function load(
  target: Target,
  options: Pick<autocannon.Options, 'method' | 'body' | 'headers' | 'idReplacement'> & {
    path: string;
  },
): Promise<Load> {
  const { path, ...request } = options;
  const cpuBefore = target.cpu();
  // The load runs in a worker thread, so that it does not take the event loop of the servers.
  const result = await autocannon({
    ...request,
    url: target.url + path,
    connections: CONNECTIONS,
    duration: SECONDS,
    workers: 1,
  });
  const cpu = target.cpu() - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${target.url}${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    );
  }
  return { rate: result.requests.average, cpu: cpu / result.requests.total };
}

function configFor(
  database: BenchDatabase,
  worker: 'off' | 'inline' = 'off',
  metrics: 'on' | 'off' = 'on',
): AppConfig {
  return new AppConfig(
    validateEnvironment({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      WORKER: worker,
      METRICS: metrics,
    }),
  );
}

/** The real app on a free port of 127.0.0.1, and its base URL. */
async function listening(config: AppConfig): Promise<{ app: INestApplication; base: string }> {
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

async function readLatencies(base: string, seeded: SeedResult): Promise<Array<[string, Latency]>> {
  const key = `api_key=${seeded.apiKey}`;
  const deepPage = Math.max(0, Math.floor(seeded.userRows / 25) - 1);
  const month = `start=${encodeURIComponent(seeded.monthStart)}&end=${encodeURIComponent(seeded.now)}`;
  return [
    ['get_entries sended page 0', await measure(`${base}/api/list/sended/?${key}`)],
    [
      `get_entries sended page ${deepPage}`,
      await measure(`${base}/api/list/sended/${deepPage}/?${key}`),
    ],
    [
      'get_entries sended after_id (middle)',
      await measure(`${base}/api/list/sended/after/${seeded.middleId}/?${key}`),
    ],
    [
      'get_entries sended status=failed after_id (middle)',
      await measure(`${base}/api/list/sended/after/${seeded.middleId}/?status=failed&${key}`),
    ],
    ['get_usage', await measure(`${base}/api/usage/?${key}`)],
    ['get_usage (month, tag)', await measure(`${base}/api/usage/?${month}&tag=campaign%25&${key}`)],
    [
      'get_sms_status_stats (month)',
      await measure(`${base}/api/stats/sms-status/?${month}&${key}`),
    ],
    ...(await conversationLatencies(base, key)),
    ['get_daily_stats (month)', await measure(`${base}/api/stats/daily/?${month}&${key}`)],
    ['get_queue_stats', await measure(`${base}/api/stats/queue/?${key}`)],
    [
      'get_reliability_stats (month)',
      await measure(`${base}/api/stats/reliability/?${month}&${key}`),
    ],
    [
      'get_invalid_numbers',
      await measure(
        `${base}/api/invalid_number/?volume=1&percent_failed=10&percent_unknown=0&${key}`,
      ),
    ],
  ];
}

/**
 * The conversations operations: the newest page and the one after it, the newest conversation's
 * thread, and marking it read (nothing left unread after the first call).
 */
async function conversationLatencies(base: string, key: string): Promise<Array<[string, Latency]>> {
  const first = (await (await fetch(`${base}/api/conversation/?${key}`)).json()) as {
    response: Array<{ number: string }>;
    next: string;
  };
  const thread = `${base}/api/conversation/${encodeURIComponent(first.response[0].number)}/`;
  return [
    ['get_conversations', await measure(`${base}/api/conversation/?${key}`)],
    ['get_conversations next page', await measure(first.next)],
    ['get_conversation', await measure(`${thread}?${key}`)],
    ['post_conversation_read', await measure(`${thread}read/?${key}`, SAMPLES, 'POST')],
  ];
}

/**
 * Requests/s of smsgw and of the baseline for one operation: ROUNDS runs each, alternated, so
 * that a burst of load from elsewhere on the machine falls on both sides alike.
 */
async function compare(
  base: string,
  baseline: string,
  options: Pick<autocannon.Options, 'method' | 'body' | 'headers' | 'idReplacement'> & {
    path: string;
  },
): Promise<{ api: Load; raw: Load }> {
  const [api, raw] = await alternate([inProcess(base), inProcess(baseline)], options);
  return { api, raw };
}

/**
 * The mean load of `options` on each of `bases`, ROUNDS runs each, alternated; `mirrored`, every
 * other round runs them in reverse order, so that neither side always runs first (on a machine
 * whose load drifts, that alone moved the ratio by 10 %).
 */
async function alternate(
  targets: readonly Target[],
  options: Pick<autocannon.Options, 'method' | 'body' | 'headers' | 'idReplacement'> & {
    path: string;
  },
  mirrored = false,
): Promise<Load[]> {
  const sums = targets.map(() => ({ rate: 0, cpu: 0 }));
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = [...targets.entries()];
    for (const [index, target] of mirrored && round % 2 === 1 ? order.reverse() : order) {
      const measured = await load(target, options);
      sums[index].rate += measured.rate / ROUNDS;
      sums[index].cpu += measured.cpu / ROUNDS;
    }
  }
  return sums;
}

/**
 * get_send_sms on the compiled app started with METRICS=on and with METRICS=off over the same
 * database, each in a process of its own, alternated; printed with the ratios.
 */
async function metricsCost(database: BenchDatabase, apiKey: string): Promise<void> {
  const path = `/api/send-sms/?api_key=${apiKey}&to=%2B33612345678&text=Hello`;
  const started: BuiltApp[] = [];
  try {
    for (const metrics of ['on', 'off']) {
      started.push(
        await startBuiltApp(
          {
            DATABASE_URL: database.url,
            DATA_DIR: database.dataDir,
            LOG_LEVEL: 'silent',
            WORKER: 'off',
            METRICS: metrics,
          },
          database.dataDir,
        ),
      );
    }
    const targets = started.map((app) => ({ url: app.url, cpu: () => processCpuMicros(app.pid) }));
    for (const target of targets) {
      // Each warmed (JIT, connections, caches) as the in-process app was by the runs before.
      await load(target, { path });
    }
    const [on, off] = await alternate(targets, { path }, true);
    process.stdout.write(
      `\nMetrics cost (get_send_sms on dist/main.js, one process per side, ${CONNECTIONS} ` +
        `connections, ${SECONDS} s each, ${ROUNDS} alternated runs per side; CPU: µs of the ` +
        'whole process per request):\n\n' +
        '| METRICS | req/s | CPU µs/request |\n|---|---|---|\n' +
        `| on | ${on.rate.toFixed(0)} | ${on.cpu.toFixed(0)} |\n` +
        `| off | ${off.rate.toFixed(0)} | ${off.cpu.toFixed(0)} |\n` +
        `\nThroughput on / off: ${(on.rate / off.rate).toFixed(3)}; ` +
        `CPU per request on / off: ${(on.cpu / off.cpu).toFixed(3)}\n`,
    );
  } finally {
    await Promise.all(started.map((app) => app.stop()));
  }
}

/**
 * get_send_sms without and with an idempotency key (`[<id>]`: autocannon's unique id per
 * request, so every request creates its message and writes its key), in the same app, ROUNDS
 * runs each alternated in mirrored order; printed with the ratios.
 */
async function idempotencyCost(base: string, apiKey: string): Promise<void> {
  const path = `/api/send-sms/?api_key=${apiKey}&to=%2B33612345678&text=Hello`;
  const sides = [
    { path },
    { path, headers: { 'idempotency-key': 'bench-[<id>]' }, idReplacement: true },
  ];
  const sums = sides.map(() => ({ rate: 0, cpu: 0 }));
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = [...sides.entries()];
    for (const [index, options] of round % 2 === 1 ? order.reverse() : order) {
      const measured = await load(inProcess(base), options);
      sums[index].rate += measured.rate / ROUNDS;
      sums[index].cpu += measured.cpu / ROUNDS;
    }
  }
  const [plain, keyed] = sums;
  process.stdout.write(
    `\nIdempotency keys (get_send_sms, ${CONNECTIONS} connections, ${SECONDS} s each, ${ROUNDS} ` +
      'alternated runs per side; CPU: µs of the server thread per request):\n\n' +
      '| get_send_sms | req/s | CPU µs/request |\n|---|---|---|\n' +
      `| without a key | ${plain.rate.toFixed(0)} | ${plain.cpu.toFixed(0)} |\n` +
      `| with a new key each | ${keyed.rate.toFixed(0)} | ${keyed.cpu.toFixed(0)} |\n` +
      `\nThroughput with / without: ${(keyed.rate / plain.rate).toFixed(3)}; ` +
      `CPU per request with / without: ${(keyed.cpu / plain.cpu).toFixed(3)}\n`,
  );
}

/**
 * Lines per second of a contacts import (one request, one transaction): IMPORT_LINES new
 * contacts, then the same file again, where every line updates the contact of its name.
 */
async function importRates(base: string, apiKey: string, dataDir: string): Promise<void> {
  const file = join(dataDir, 'contacts.csv');
  const lines = ['name,number,firstname,plan'];
  for (let index = 0; index < IMPORT_LINES; index += 1) {
    lines.push(
      `Contact ${index},+336${30_000_000 + index},First${index},${index % 3 ? 'pro' : 'free'}`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  const rates: string[] = [];
  for (const label of ['new contacts', 'updates']) {
    const form = new FormData();
    form.append('contacts_csv', await openAsBlob(file), 'contacts.csv');
    const started = performance.now();
    const response = await fetch(`${base}/api/contact/import/?api_key=${apiKey}`, {
      method: 'POST',
      body: form,
    });
    const seconds = (performance.now() - started) / 1000;
    const body = (await response.json()) as { error: number; message: string | null };
    if (!response.ok || body.error !== 0) {
      throw new Error(`contact import answered ${response.status}: ${body.message}`);
    }
    rates.push(`| ${label} | ${(IMPORT_LINES / seconds).toFixed(0)} | ${seconds.toFixed(2)} |`);
  }
  process.stdout.write(
    `\nContacts import (${IMPORT_LINES.toLocaleString('en')} CSV lines, one request):\n\n` +
      `| lines | lines/s | seconds |\n|---|---|---|\n${rates.join('\n')}\n`,
  );
}

async function throughput(base: string, baseline: string, apiKey: string) {
  const sendSms = `/api/send-sms/?api_key=${apiKey}&to=%2B33612345678&text=Hello`;
  const form = `api_key=${apiKey}&text=Hello&numbers[]=%2B33612345678&numbers[]=%2B33612345679`;
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
  const rates: Array<[string, { api: Load; raw: Load }]> = [
    ['get_send_sms', await compare(base, baseline, { path: sendSms })],
  ];
  if (!ONLY_SEND_SMS) {
    rates.push([
      'post_scheduled',
      await compare(base, baseline, {
        path: '/api/scheduled/',
        method: 'POST',
        body: form,
        headers: formHeaders,
      }),
    ]);
  }
  return rates;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** p50, p99 and the slowest of `times`. */
function percentiles(times: number[]): Latency & { max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

/**
 * get_send_sms and a read, in turn, one at a time, from a worker thread (a client of its own,
 * whose requests wait only for the server), until `stop`; their times.
 */
function probe(base: string, apiKey: string): { stop(): Promise<Record<Probed, number[]>> } {
  const thread = new Worker(PROBE, {
    eval: true,
    workerData: {
      sendSms: `${base}/api/send-sms/?api_key=${apiKey}&to=%2B33612345678&text=Hi`,
      read: `${base}/api/list/sended/?api_key=${apiKey}`,
    },
  });
  const times = new Promise<Record<Probed, number[]>>((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
  });
  return {
    stop: async () => {
      thread.postMessage('stop');
      const result = await times;
      await thread.terminate();
      return result;
    },
  };
}

type Probed = 'sendSms' | 'read';

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let stopped = false;
parentPort.once('message', () => { stopped = true; });
(async () => {
  const times = { sendSms: [], read: [] };
  for (let turn = 0; !stopped; turn += 1) {
    const kind = turn % 2 === 0 ? 'sendSms' : 'read';
    const start = performance.now();
    const response = await fetch(workerData[kind]);
    const body = await response.json();
    if (!response.ok || body.error !== 0) {
      throw new Error(kind + ' answered ' + response.status + ' ' + JSON.stringify(body));
    }
    times[kind].push(performance.now() - start);
  }
  parentPort.postMessage(times);
})();
`;

/**
 * Latencies while the inline worker dispatches one message to CAMPAIGN numbers (due once the
 * app is up), next to the same probe for as long with nothing to dispatch.
 */
async function campaign(target: string): Promise<void> {
  const database = await createBenchDatabase(target);
  try {
    const config = configFor(database, 'inline');
    const setup = await openDataSource(config.database, secretCipher(config));
    await migrate(setup);
    const seeded = await seed(setup, 10_000);
    const scheduled = await seedCampaign(setup, CAMPAIGN);
    await setup.destroy();
    const app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const ds = app.get(DataSource);
    for (let i = 0; i < 20; i += 1) {
      await fetchOk(`${base}/api/list/sended/?api_key=${seeded.apiKey}`);
    }
    let dispatched = false;
    const started = performance.now();
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [
      '2020-01-01 00:00:00',
      '2020-01-01 00:00:00',
      scheduled,
    ]);
    const busy = probe(base, seeded.apiKey);
    while (!dispatched) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [row] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM sended WHERE originating_scheduled = ?',
        [scheduled],
      );
      dispatched = Number(row.n) >= CAMPAIGN;
    }
    const during = await busy.stop();
    const seconds = (performance.now() - started) / 1000;
    // The probe's own messages are dispatched before the idle run.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const quiet = probe(base, seeded.apiKey);
    await new Promise((resolve) => setTimeout(resolve, Math.min(seconds, 10) * 1000));
    const idle = await quiet.stop();
    await app.close();
    process.stdout.write(
      `\n## Latency while a campaign of ${CAMPAIGN.toLocaleString('en')} recipients dispatches ` +
        `(inline worker, test adapter: ${seconds.toFixed(1)} s, ` +
        `${(CAMPAIGN / seconds).toFixed(0)} recipients/s)\n\n` +
        '| operation | requests | p50 | p99 | max | idle p50 | idle p99 |\n' +
        '|---|---|---|---|---|---|---|\n',
    );
    for (const [label, key] of [
      ['get_send_sms', 'sendSms'],
      ['get_entries sended page 0', 'read'],
    ] as const) {
      const loaded = percentiles(during[key]);
      const unloaded = percentiles(idle[key]);
      process.stdout.write(
        `| ${label} | ${during[key].length} | ${ms(loaded.p50)} | ${ms(loaded.p99)} | ` +
          `${ms(loaded.max)} | ${ms(unloaded.p50)} | ${ms(unloaded.p99)} |\n`,
      );
    }
  } finally {
    await database.drop();
  }
}

/** One message of the measured user (user 1) to `recipients` numbers, not due yet; its id. */
async function seedCampaign(dataSource: DataSource, recipients: number): Promise<number> {
  const stamp = '2020-01-01 00:00:00';
  const result: unknown = await dataSource.query(
    'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
      'VALUES (1, ?, ?, ?, 0, 0, ?)',
    ['2999-01-01 00:00:00', '2999-01-01 00:00:00', 'Hello from the campaign', stamp],
  );
  const id =
    typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);
  for (let start = 0; start < recipients; start += 500) {
    const count = Math.min(500, recipients - start);
    await dataSource.query(
      'INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES ' +
        rowMarks(count, 4),
      Array.from({ length: count }, (_, index) => [
        id,
        `+336${20_000_000 + start + index}`,
        '[]',
        stamp,
      ]).flat(),
    );
  }
  return id;
}

/** Requests per second of each of the two operations the upload scenario probes. */
const STEADY_RATE = 50;

/**
 * Latencies of GET /health and get_send_sms, each sent STEADY_RATE times a second whether or not
 * the previous answer came (a stall delays every request sent during it, as it delays real
 * clients), while an upload is received and written, and with nothing uploaded for as long.
 */
async function upload(target: string): Promise<void> {
  const database = await createBenchDatabase(target);
  try {
    const config = configFor(database);
    const setup = await openDataSource(config.database, secretCipher(config));
    await migrate(setup);
    const seeded = await seed(setup, 10_000);
    await setup.destroy();
    const numbersFile = join(database.dataDir, 'numbers.csv');
    const numbers = ['number,firstname'];
    for (let index = 0; index < UPLOAD_ROWS; index += 1) {
      numbers.push(`+336${40_000_000 + index},First${index}`);
    }
    writeFileSync(numbersFile, `${numbers.join('\n')}\n`);
    const contactsFile = join(database.dataDir, 'contacts.csv');
    const contacts = ['name,number,firstname'];
    for (let index = 0; index < UPLOAD_ROWS; index += 1) {
      contacts.push(`Upload ${index},+336${40_000_000 + index},First${index}`);
    }
    writeFileSync(contactsFile, `${contacts.join('\n')}\n`);
    const { app, base } = await listening(config);
    const key = `api_key=${seeded.apiKey}`;
    const uploads: Record<string, UploadRequest> = {
      'post_scheduled numbers_csv': {
        url: `${base}/api/scheduled/?${key}`,
        fields: { text: 'Hello {{ firstname }}', at: '2999-01-01 00:00:00' },
        file: { field: 'numbers_csv', path: numbersFile },
      },
      'post_import_contacts contacts_csv': {
        url: `${base}/api/contact/import/?${key}`,
        fields: {},
        file: { field: 'contacts_csv', path: contactsFile },
      },
    };
    const probed = {
      health: `${base}/health`,
      sendSms: `${base}/api/send-sms/?${key}&to=%2B33612345678&text=Hi`,
    };
    // Warm-up: JIT, statement caches, connections; then each upload once with a file of two
    // rows, so that what a first templated message or a first import loads (the template
    // engine and its sandbox) is not timed as the upload's.
    await steadyProbe(probed, { seconds: 2 });
    for (const request of Object.values(uploads)) {
      await warmUp(request, database.dataDir);
    }
    process.stdout.write(
      `\n## Latency while an upload of ${UPLOAD_ROWS.toLocaleString('en')} rows is received and ` +
        `written (GET /health and get_send_sms, ${STEADY_RATE} requests/s each; ${ROUNDS} ` +
        'alternated rounds)\n\n' +
        '| upload | round | upload s | health p50 | health p99 | health max | ' +
        'send_sms p50 | send_sms p99 | send_sms max |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [label, request] of Object.entries(uploads)) {
        const busy = await steadyProbe(probed, { upload: request });
        const idle = await steadyProbe(probed, { seconds: busy.seconds });
        for (const [name, run] of [
          [label, busy],
          ['none (as long)', idle],
        ] as const) {
          const health = percentiles(run.times.health);
          const sendSms = percentiles(run.times.sendSms);
          process.stdout.write(
            `| ${name} | ${round + 1} | ${run === busy ? run.seconds.toFixed(2) : '–'} | ` +
              `${ms(health.p50)} | ${ms(health.p99)} | ${ms(health.max)} | ` +
              `${ms(sendSms.p50)} | ${ms(sendSms.p99)} | ${ms(sendSms.max)} |\n`,
          );
        }
      }
    }
    await app.close();
  } finally {
    await database.drop();
  }
}

interface UploadRequest {
  url: string;
  fields: Record<string, string>;
  file: { field: string; path: string };
}

/** Sends `request` once with the first two rows of its file (other numbers than the file's). */
async function warmUp(request: UploadRequest, dir: string): Promise<void> {
  const [header, first, second] = readFileSync(request.file.path, 'utf8').split('\n');
  const path = join(dir, `warm-up-${request.file.field}.csv`);
  writeFileSync(path, `${[header, first, second].join('\n').replaceAll('+336', '+337')}\n`);
  const form = new FormData();
  for (const [name, value] of Object.entries(request.fields)) {
    form.append(name, value);
  }
  form.append(request.file.field, await openAsBlob(path), 'warm-up.csv');
  const response = await fetch(request.url, { method: 'POST', body: form });
  if (!response.ok) {
    throw new Error(`The warm-up upload to ${request.url} answered ${response.status}.`);
  }
}

interface SteadyRun {
  /** How long the upload took, or the run lasted. */
  seconds: number;
  times: { health: number[]; sendSms: number[] };
}

/**
 * Runs the steady probe in a worker thread (a client of its own, whose requests wait only for
 * the server) for `seconds`, or for as long as `upload` takes, sent from that thread too.
 */
async function steadyProbe(
  urls: { health: string; sendSms: string },
  run: { seconds?: number; upload?: UploadRequest },
): Promise<SteadyRun> {
  const thread = new Worker(STEADY_PROBE, {
    eval: true,
    workerData: { urls, rate: STEADY_RATE, ...run },
  });
  try {
    return await new Promise<SteadyRun>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
  } finally {
    await thread.terminate();
  }
}

const STEADY_PROBE = `
const { openAsBlob } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { urls, rate, seconds, upload } = workerData;
const times = { health: [], sendSms: [] };
const pending = new Set();
async function timed(kind) {
  const start = performance.now();
  const response = await fetch(urls[kind]);
  const body = await response.json();
  if (!response.ok || (kind === 'sendSms' && body.error !== 0)) {
    throw new Error(kind + ' answered ' + response.status + ' ' + JSON.stringify(body));
  }
  times[kind].push(performance.now() - start);
}
async function send() {
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) {
    form.append(name, value);
  }
  form.append(upload.file.field, await openAsBlob(upload.file.path), 'upload.csv');
  const response = await fetch(upload.url, { method: 'POST', body: form });
  const body = await response.json();
  if (!response.ok || body.error !== 0) {
    throw new Error('upload answered ' + response.status + ' ' + JSON.stringify(body));
  }
}
(async () => {
  const started = performance.now();
  let done = false;
  const finished = upload
    ? send().then(() => { done = true; })
    : new Promise((resolve) => setTimeout(() => { done = true; resolve(); }, seconds * 1000));
  let failure;
  finished.catch((error) => { failure = error; done = true; });
  for (let tick = 0; !done; tick += 1) {
    for (const kind of ['health', 'sendSms']) {
      const request = timed(kind).catch((error) => { failure = error; });
      pending.add(request);
      request.finally(() => pending.delete(request));
    }
    const next = started + ((tick + 1) * 1000) / rate;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all(pending);
  if (failure) {
    throw failure;
  }
  parentPort.postMessage({ seconds: elapsed, times });
})();
`;

async function main(): Promise<void> {
  const target = process.env.BENCH_DATABASE_URL ?? 'sqlite';
  process.stdout.write(`# bench:api on ${target.replace(/\/\/[^@]*@/, '//…@')}\n`);
  if (ONLY_CAMPAIGN) {
    await campaign(target);
    return;
  }
  if (ONLY_UPLOAD) {
    await upload(target);
    return;
  }
  const p50ByLabel = new Map<string, number[]>();
  for (const size of ONLY_SEND_SMS || ONLY_IDEMPOTENCY ? SIZES.slice(0, 1) : SIZES) {
    const database = await createBenchDatabase(target);
    try {
      const config = configFor(database);
      const dataSource = await openDataSource(config.database, secretCipher(config));
      await migrate(dataSource);
      const seedStart = performance.now();
      const seeded = await seed(dataSource, size);
      await dataSource.destroy();
      process.stdout.write(
        `\n## ${size.toLocaleString('en')} sended rows (${seeded.userRows.toLocaleString('en')} of the measured user; seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s)\n\n`,
      );
      const { app, base } = await listening(config);
      if (ONLY_IDEMPOTENCY) {
        await idempotencyCost(base, seeded.apiKey);
        await app.close();
        continue;
      }
      if (!ONLY_SEND_SMS) {
        process.stdout.write('| operation | p50 | p99 |\n|---|---|---|\n');
        for (const [label, latency] of await readLatencies(base, seeded)) {
          process.stdout.write(`| ${label} | ${ms(latency.p50)} | ${ms(latency.p99)} |\n`);
          const key = label.replace(/page \d+/, 'deep page');
          p50ByLabel.set(key, [...(p50ByLabel.get(key) ?? []), latency.p50]);
        }
      }
      if (size === SIZES[0]) {
        if (!ONLY_SEND_SMS) {
          await importRates(base, seeded.apiKey, database.dataDir);
        }
        const baseline = await startBaseline(database.url);
        const rates = await throughput(base, baseline.url, seeded.apiKey);
        await baseline.close();
        const runs = ROUNDS > 1 ? `, ${ROUNDS} alternated runs per side` : '';
        process.stdout.write(
          `\nThroughput (${CONNECTIONS} connections, ${SECONDS} s each${runs}; CPU: µs of the ` +
            'server thread per request):\n\n' +
            '| operation | smsgw req/s | baseline req/s | ratio | smsgw CPU | baseline CPU |\n' +
            '|---|---|---|---|---|---|\n' +
            rates
              .map(
                ([label, { api, raw }]) =>
                  `| ${label} | ${api.rate.toFixed(0)} | ${raw.rate.toFixed(0)} | ` +
                  `${(api.rate / raw.rate).toFixed(2)} | ${api.cpu.toFixed(0)} | ${raw.cpu.toFixed(0)} |\n`,
              )
              .join(''),
        );
        await idempotencyCost(base, seeded.apiKey);
        if (ONLY_SEND_SMS) {
          await metricsCost(database, seeded.apiKey);
        }
      }
      await app.close();
    } finally {
      await database.drop();
    }
  }
  if (SIZES.length > 1 && !ONLY_SEND_SMS && !ONLY_IDEMPOTENCY) {
    process.stdout.write(`\n## p50 at ${SIZES.at(-1)} rows / p50 at ${SIZES[0]} rows\n\n`);
    for (const [label, values] of p50ByLabel) {
      process.stdout.write(`- ${label}: ${(values.at(-1)! / values[0]).toFixed(2)}×\n`);
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:api failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
