import Database from 'better-sqlite3';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { generateApiKey, hashApiKey } from '../src/common/auth/api-key';
import { freePort } from './ports';

/*
 * bench:footprint: the API process's memory with the defaults, started as the peer
 * benchmark starts it: `node dist/main.js` with a clean environment but for PATH and HOME, a
 * fresh DATA_DIR, DATABASE_URL=sqlite:<DATA_DIR>/smsgw.sqlite, a free PORT, HOST=127.0.0.1 and
 * WORKER=inline.
 *
 * Each run: from the spawn until GET /api/list/phone/ answers (boot), then BENCH_IDLE_SECONDS
 * (5) idle, and VmRSS (resident now) and VmHWM (the peak so far, as the peer benchmark reads it)
 * from /proc/<pid>/status. Then a user and a `test` phone are inserted into the database (as
 * bench/seed.ts does), a few typical requests are made (a key-authenticated get_send_sms through
 * that phone, which the inline worker sends, the phone list, the console's page), and after the
 * same idle time both figures again. BENCH_RUNS (3) runs; medians.
 *
 * Runs the built process: `npm run bench:footprint` builds first. BENCH_DIST measures another
 * build instead (a copy of an earlier commit's dist/, to compare both in one session).
 */

const DIST = process.env.BENCH_DIST ?? join(__dirname, '..', 'dist');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 5) * 1000;
const BOOT_TIMEOUT_MS = 60_000;
const STAMP = '2020-01-01 00:00:00';

interface Reading {
  rssMiB: number;
  hwmMiB: number;
}

interface Run {
  bootMs: number;
  idle: Reading;
  used: Reading;
  load: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS and VmHWM of `pid`, in MiB. */
function read(pid: number): Reading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!match) {
      throw new Error(`no ${field} in /proc/${pid}/status`);
    }
    return Number(match[1]) / 1024;
  };
  return { rssMiB: kib('VmRSS'), hwmMiB: kib('VmHWM') };
}

async function answer(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

async function waitUntilUp(child: ChildProcess, base: string): Promise<void> {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`main.js exited (${child.exitCode ?? child.signalCode}) before it was up`);
    }
    if (Date.now() > deadline) {
      throw new Error(`main.js did not answer within ${BOOT_TIMEOUT_MS / 1000} s`);
    }
    try {
      await answer(`${base}/api/list/phone/`);
      return;
    } catch {
      // Not listening yet.
    }
    await sleep(20);
  }
}

/** A user with a fresh API key and an available `test` phone, straight into the database. */
function seed(file: string): { apiKey: string; phone: number } {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const apiKey = generateApiKey();
    const user = db
      .prepare(
        "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES ('footprint@example.test', ?, 0, 'active', ?)",
      )
      .run(hashApiKey(apiKey), STAMP).lastInsertRowid;
    const phone = db
      .prepare(
        "INSERT INTO phone (id_user, name, adapter, adapter_data, priority, status, created_at) VALUES (?, 'footprint', 'test', '{}', 0, 'available', ?)",
      )
      .run(user, STAMP).lastInsertRowid;
    return { apiKey, phone: Number(phone) };
  } finally {
    db.close();
  }
}

async function typicalRequests(base: string, file: string): Promise<void> {
  const { apiKey, phone } = seed(file);
  const headers = { 'X-Api-Key': apiKey };
  const expect = (what: string, status: number) => {
    if (status !== 200) {
      throw new Error(`${what} answered ${status}`);
    }
  };
  expect(
    'get_send_sms',
    await answer(`${base}/api/send-sms/?to=%2B33612345678&text=Hello%20Ada&id_phone=${phone}`, {
      headers,
    }),
  );
  expect('get_list_phone', await answer(`${base}/api/list/phone/`, { headers }));
  expect('the console page', await answer(`${base}/`));
}

async function run(): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-footprint-'));
  const file = join(dataDir, 'smsgw.sqlite');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const load = loadavg()[0];
  const started = performance.now();
  const child = spawn(process.execPath, [join(DIST, 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: `sqlite:${file}`,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKER: 'inline',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitUntilUp(child, base);
    const bootMs = performance.now() - started;
    await sleep(IDLE_MS);
    const idle = read(child.pid!);
    await typicalRequests(base, file);
    await sleep(IDLE_MS);
    return { bootMs, idle, used: read(child.pid!), load };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const mib = (value: number) => value.toFixed(1);

function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

async function main(): Promise<void> {
  process.stdout.write(
    `bench:footprint of ${DIST} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${RUNS} runs, ${IDLE_MS / 1000} s idle\n\n`,
  );
  const runs: Run[] = [];
  const header = [
    '#',
    'load avg (1 min) before',
    'boot ms',
    'idle RSS MiB',
    'idle peak (VmHWM) MiB',
    'after requests RSS MiB',
    'after requests peak MiB',
  ];
  const lines = [row(header), row(header.map(() => '---'))];
  for (let n = 1; n <= RUNS; n += 1) {
    const result = await run();
    runs.push(result);
    lines.push(
      row([
        n,
        result.load.toFixed(2),
        Math.round(result.bootMs),
        mib(result.idle.rssMiB),
        mib(result.idle.hwmMiB),
        mib(result.used.rssMiB),
        mib(result.used.hwmMiB),
      ]),
    );
  }
  const of = (pick: (run: Run) => number) => median(runs.map(pick));
  lines.push(
    row([
      'median',
      of((r) => r.load).toFixed(2),
      Math.round(of((r) => r.bootMs)),
      mib(of((r) => r.idle.rssMiB)),
      mib(of((r) => r.idle.hwmMiB)),
      mib(of((r) => r.used.rssMiB)),
      mib(of((r) => r.used.hwmMiB)),
    ]),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
