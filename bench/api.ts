/*
 * npm run bench:api — latency and throughput of the API on the chosen database.
 *
 *   BENCH_DATABASE_URL=sqlite                                   (default: a temporary SQLite file)
 *   BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/test          (a scratch database is created and dropped)
 *   BENCH_SIZES=10000,100000,1000000                            (sended rows seeded, default these three)
 *   BENCH_SECONDS=10                                            (duration of each throughput run)
 *   BENCH_ONLY=send-sms                                         (only get_send_sms throughput, at the first size)
 *   BENCH_ROUNDS=1                                              (throughput runs per side, alternated)
 *   BENCH_CONNECTIONS=20                                        (concurrent clients of the throughput runs)
 *
 * For each size it seeds sent messages across users and phones, starts the real app and prints
 * p50/p99 of the read operations. Then it measures requests/s of get_send_sms and post_scheduled
 * under concurrency (autocannon) next to a baseline measured in the same run: a bare node:http
 * handler doing the same key lookup and insert with the same driver, each request committed on
 * its own (smsgw commits the inserts of concurrent requests together: see DriverSql).
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.factory';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { AppConfig } from '../src/config/configuration';
import { validateEnvironment } from '../src/config/env.validation';
import { migrate, openDataSource } from '../src/database/data-source';
import { startBaseline } from './baseline';
import { BenchDatabase, createBenchDatabase } from './database';
import { seed, SeedResult } from './seed';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ONLY_SEND_SMS = process.env.BENCH_ONLY === 'send-sms';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** USER_HZ, the unit of the CPU times in /proc: 100 on x86 and ARM Linux. */
const CLOCK_TICKS_PER_SECOND = 100;
const SAMPLES = 200;

interface Latency {
  p50: number;
  p99: number;
}

async function measure(url: string, samples = SAMPLES): Promise<Latency> {
  for (let i = 0; i < 10; i += 1) {
    await fetchOk(url);
  }
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const start = performance.now();
    await fetchOk(url);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function fetchOk(url: string): Promise<void> {
  const response = await fetch(url);
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
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
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

async function load(
  options: Pick<autocannon.Options, 'url' | 'method' | 'body' | 'headers'>,
): Promise<Load> {
  const cpuBefore = serverThreadCpuMicros();
  // The load runs in a worker thread, so that it does not take the event loop of the servers.
  const result = await autocannon({
    ...options,
    connections: CONNECTIONS,
    duration: SECONDS,
    workers: 1,
  });
  const cpu = serverThreadCpuMicros() - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rate: result.requests.average, cpu: cpu / result.requests.total };
}

function configFor(database: BenchDatabase): AppConfig {
  return new AppConfig(
    validateEnvironment({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      WORKER: 'off',
    }),
  );
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
    ['get_usage', await measure(`${base}/api/usage/?${key}`)],
    ['get_usage (month, tag)', await measure(`${base}/api/usage/?${month}&tag=campaign%25&${key}`)],
    [
      'get_sms_status_stats (month)',
      await measure(`${base}/api/stats/sms-status/?${month}&${key}`),
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
 * Requests/s of smsgw and of the baseline for one operation: ROUNDS runs each, alternated, so
 * that a burst of load from elsewhere on the machine falls on both sides alike.
 */
async function compare(
  base: string,
  baseline: string,
  options: Pick<autocannon.Options, 'method' | 'body' | 'headers'> & { path: string },
): Promise<{ api: Load; raw: Load }> {
  const { path, ...request } = options;
  const api = { rate: 0, cpu: 0 };
  const raw = { rate: 0, cpu: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [sum, url] of [
      [api, base + path],
      [raw, baseline + path],
    ] as const) {
      const measured = await load({ ...request, url });
      sum.rate += measured.rate / ROUNDS;
      sum.cpu += measured.cpu / ROUNDS;
    }
  }
  return { api, raw };
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

async function main(): Promise<void> {
  const target = process.env.BENCH_DATABASE_URL ?? 'sqlite';
  process.stdout.write(`# bench:api on ${target.replace(/\/\/[^@]*@/, '//…@')}\n`);
  const p50ByLabel = new Map<string, number[]>();
  for (const size of ONLY_SEND_SMS ? SIZES.slice(0, 1) : SIZES) {
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
      const app = await createApp(config);
      await app.listen(0, '127.0.0.1');
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
      if (!ONLY_SEND_SMS) {
        process.stdout.write('| operation | p50 | p99 |\n|---|---|---|\n');
        for (const [label, latency] of await readLatencies(base, seeded)) {
          process.stdout.write(`| ${label} | ${ms(latency.p50)} | ${ms(latency.p99)} |\n`);
          const key = label.replace(/page \d+/, 'deep page');
          p50ByLabel.set(key, [...(p50ByLabel.get(key) ?? []), latency.p50]);
        }
      }
      if (size === SIZES[0]) {
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
      }
      await app.close();
    } finally {
      await database.drop();
    }
  }
  if (SIZES.length > 1 && !ONLY_SEND_SMS) {
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
