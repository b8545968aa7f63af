import Database from 'better-sqlite3';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/config/configuration';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { validateEnvironment } from '../src/config/env.validation';
import { migrate, openDataSource } from '../src/database/data-source';
import { BenchDatabase, createBenchDatabase } from './database';

/*
 * bench:dispatch (issue 4, point 9): recipients per second from due scheduled messages to
 * `sended` entries through the `benchmark` adapter, with the worker inline in the API process on
 * SQLite and with 1 and 3 worker processes on MariaDB; next to the rate at which the same driver
 * inserts the same `sended` rows raw (multi-row INSERTs of one batch each), measured in the same
 * run; the CPU time the dispatching processes (all their threads) spend per 1,000 recipients,
 * which moves far less than the rate when other jobs load the machine; and their peak resident
 * memory per campaign size.
 *
 * Each setup runs with a templated text (`Hello {{ contact.firstname }}`, rendered per recipient)
 * and with a plain one (no Twig delimiters: not rendered at all); and with the recipients in
 * one message (a campaign) or in one message each (as a flood of get_send_sms leaves them).
 *
 * Runs the built processes: `npm run build` first. BENCH_MYSQL_URL (default
 * mysql://root@127.0.0.1:3306/test, "off" to skip), BENCH_RECIPIENTS (default 20000,100000,300000),
 * BENCH_TEXTS (default template,plain), BENCH_ENGINES (default SQLite,MariaDB), BENCH_MESSAGES
 * (default one,each: the recipients in one message, or one message per recipient).
 */

const DIST = join(__dirname, '..', 'dist');
const MYSQL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const SIZES = (process.env.BENCH_RECIPIENTS ?? '20000,100000,300000').split(',').map(Number);
const BATCH = 500;
/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;
const TEXTS: Readonly<Record<string, string>> = {
  template: 'Hello {{ contact.firstname }}',
  plain: 'Hello Ada',
};
const TEXT_KINDS = (process.env.BENCH_TEXTS ?? 'template,plain').split(',');
const MESSAGE_KINDS = (process.env.BENCH_MESSAGES ?? 'one,each').split(',');
const STAMP = '2020-01-01 00:00:00';
/** The campaign waits until the workers are up: their boot is not part of the rate. */
const NOT_YET = '2999-01-01 00:00:00';

interface Run {
  setup: string;
  recipients: number;
  seconds: number;
  rate: number;
  /** CPU time of the dispatching processes (all their threads) per 1,000 recipients. */
  cpuMsPerThousand: number;
  peakRssMiB: number;
}

function configFor(database: BenchDatabase): AppConfig {
  return new AppConfig(
    validateEnvironment({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
    }),
  );
}

const insertedId = (result: unknown): number =>
  typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);

/**
 * A user with one benchmark phone and messages of `text` to `recipients` numbers, not due yet:
 * one message to them all, or one message each.
 */
async function seedCampaign(
  ds: DataSource,
  recipients: number,
  text: string,
  messages: 'one' | 'each',
): Promise<void> {
  const user = insertedId(
    await ds.query(
      "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES ('bench@example.test', ?, 0, 'active', ?)",
      ['0'.repeat(64), STAMP],
    ),
  );
  const phone = insertedId(
    await ds.query(
      "INSERT INTO phone (id_user, name, adapter, adapter_data, priority, status, created_at) VALUES (?, 'bench', 'benchmark', '{}', 0, 'available', ?)",
      [user, STAMP],
    ),
  );
  for (let start = 0; start < (messages === 'one' ? 1 : recipients); start += BATCH) {
    const count = messages === 'one' ? 1 : Math.min(BATCH, recipients - start);
    await ds.query(
      'INSERT INTO scheduled (id_user, at, text, flash, mms, id_phone, created_at) VALUES ' +
        Array.from({ length: count }, () => '(?, ?, ?, 0, 0, ?, ?)').join(', '),
      Array.from({ length: count }, () => [user, NOT_YET, text, phone, STAMP]).flat(),
    );
  }
  const scheduled = (
    await ds.query<Array<{ id: number }>>('SELECT id FROM scheduled ORDER BY id')
  ).map((row) => Number(row.id));
  for (let start = 0; start < recipients; start += BATCH) {
    const count = Math.min(BATCH, recipients - start);
    await ds.query(
      'INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES ' +
        Array.from({ length: count }, () => '(?, ?, ?, ?)').join(', '),
      Array.from({ length: count }, (_, index) => [
        scheduled[messages === 'one' ? 0 : start + index],
        `+336${10_000_000 + start + index}`,
        '{"firstname":"Ada"}',
        STAMP,
      ]).flat(),
    );
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

function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function dispatchRun(
  setup: string,
  target: string,
  recipients: number,
  text: string,
  messages: 'one' | 'each',
  script: string,
  processes: number,
  env: Record<string, string>,
): Promise<Run> {
  const database = await createBenchDatabase(target);
  const config = configFor(database);
  const ds = await openDataSource(config.database, secretCipher(config));
  const children: ChildProcess[] = [];
  try {
    await migrate(ds);
    await seedCampaign(ds, recipients, text, messages);
    for (let i = 0; i < processes; i++) {
      children.push(
        spawn(process.execPath, [join(DIST, script)], {
          env: {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: database.url,
            DATA_DIR: database.dataDir,
            LOG_LEVEL: 'warn',
            DISPATCH_POLL_MS: process.env.BENCH_POLL_MS ?? '20',
            PORT: '0',
            HOST: '127.0.0.1',
            ...env,
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
    }
    for (;;) {
      const [row] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM worker',
      );
      if (Number(row.n) >= processes) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const cpu = () => children.reduce((sum, child) => sum + cpuSeconds(child.pid ?? 0), 0);
    const cpuBefore = cpu();
    const started = process.hrtime.bigint();
    await ds.query('UPDATE scheduled SET at = ?', [STAMP]);
    let peak = 0;
    for (;;) {
      peak = Math.max(
        peak,
        children.reduce((sum, child) => sum + rssMiB(child.pid ?? 0), 0),
      );
      const [row] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM sended',
      );
      if (Number(row.n) >= recipients) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      setup,
      recipients,
      seconds,
      rate: recipients / seconds,
      cpuMsPerThousand: ((cpu() - cpuBefore) * 1e6) / recipients,
      peakRssMiB: peak,
    };
  } finally {
    await Promise.all(
      children.map(async (child) => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await ds.destroy();
    await database.drop();
  }
}

type RawStyle = 'multi-row' | 'row by row';

/**
 * The same `sended` rows, inserted raw by the same driver in transactions of one batch: with
 * one multi-row INSERT per batch, or one prepared single-row INSERT per row.
 */
async function rawInsertRate(target: string, recipients: number, style: RawStyle): Promise<number> {
  const database = await createBenchDatabase(target);
  const config = configFor(database);
  const ds = await openDataSource(config.database, secretCipher(config));
  await migrate(ds);
  await ds.query(
    "INSERT INTO user (id, email, api_key_hash, admin, status, created_at) VALUES (1, 'raw@example.test', ?, 0, 'active', ?)",
    ['1'.repeat(64), STAMP],
  );
  await ds.destroy();
  const columns =
    'id_user, id_phone, at, text, destination, flash, mms, status, error, uid, adapter, tag, originating_scheduled, segments, encoding, created_at';
  const row = (index: number) => [
    1,
    null,
    STAMP,
    'Hello Ada',
    `+336${10_000_000 + index}`,
    0,
    0,
    'unknown',
    null,
    `uid${index}`,
    'benchmark',
    null,
    1,
    1,
    'GSM-7',
    STAMP,
  ];
  const rows = style === 'multi-row' ? BATCH : 1;
  const sql = `INSERT INTO sended (${columns}) VALUES ${Array.from(
    { length: rows },
    () =>
      `(${columns
        .split(',')
        .map(() => '?')
        .join(', ')})`,
  ).join(', ')}`;
  const batch = (start: number, count: number) =>
    Array.from({ length: count }, (_, index) => row(start + index));
  const started = process.hrtime.bigint();
  try {
    if (target === 'sqlite') {
      const db = new Database(join(database.dataDir, 'bench.sqlite'));
      db.pragma('journal_mode = WAL');
      // As smsgw's own connection (src/database/data-source.ts).
      db.pragma('synchronous = FULL');
      const insert = db.prepare(sql);
      const insertBatch = db.transaction((values: unknown[][]) => {
        if (style === 'multi-row') {
          insert.run(values.flat());
        } else {
          values.forEach((value) => insert.run(value));
        }
      });
      for (let start = 0; start < recipients; start += BATCH) {
        insertBatch(batch(start, BATCH));
      }
      db.close();
    } else {
      const connection = await createConnection(database.url);
      for (let start = 0; start < recipients; start += BATCH) {
        await connection.beginTransaction();
        if (style === 'multi-row') {
          await connection.execute(sql, batch(start, BATCH).flat());
        } else {
          for (const value of batch(start, BATCH)) {
            await connection.execute(sql, value);
          }
        }
        await connection.commit();
      }
      await connection.end();
    }
    return recipients / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const unknown = TEXT_KINDS.filter((kind) => TEXTS[kind] === undefined);
  if (unknown.length > 0) {
    throw new Error(`BENCH_TEXTS: unknown ${unknown.join(', ')} (template, plain)`);
  }
  const shapes = MESSAGE_KINDS.filter(
    (kind): kind is 'one' | 'each' => kind === 'one' || kind === 'each',
  );
  if (shapes.length !== MESSAGE_KINDS.length) {
    throw new Error(`BENCH_MESSAGES: ${MESSAGE_KINDS.join(',')} (one, each)`);
  }
  process.stdout.write(
    `bench:dispatch on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n\n`,
  );
  const rows: Array<Array<string | number>> = [];
  const only = process.env.BENCH_ENGINES?.split(',');
  const engines: Array<[string, string, Array<[string, string, number, Record<string, string>]>]> =
    [['SQLite', 'sqlite', [['inline (API process)', 'main.js', 1, { WORKER: 'inline' }]]]];
  if (MYSQL !== 'off') {
    engines.push([
      'MariaDB',
      MYSQL,
      [
        ['1 worker process', 'worker.js', 1, {}],
        ['3 worker processes', 'worker.js', 3, {}],
      ],
    ]);
  }
  for (const [engine, target, setups] of engines.filter(([name]) => !only || only.includes(name))) {
    for (const recipients of SIZES) {
      const multiRow = await rawInsertRate(target, recipients, 'multi-row');
      const rowByRow = await rawInsertRate(target, recipients, 'row by row');
      for (const [name, script, processes, env] of setups) {
        for (const [kind, messages] of TEXT_KINDS.flatMap((text) =>
          shapes.map((shape) => [text, shape] as const),
        )) {
          const run = await dispatchRun(
            `${engine} ${name}`,
            target,
            recipients,
            TEXTS[kind],
            messages,
            script,
            processes,
            env,
          );
          rows.push([
            run.setup,
            kind,
            messages === 'one' ? 'one' : 'one each',
            recipients,
            run.rate.toFixed(0),
            run.cpuMsPerThousand.toFixed(0),
            rowByRow.toFixed(0),
            (run.rate / rowByRow).toFixed(2),
            multiRow.toFixed(0),
            (run.rate / multiRow).toFixed(2),
            run.peakRssMiB.toFixed(0),
          ]);
        }
      }
    }
  }
  process.stdout.write(
    '| setup | text | messages | recipients | recipients/s | CPU ms per 1,000 | raw row-by-row rows/s | ratio | raw multi-row rows/s | ratio | peak RSS MiB |\n' +
      '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const row of rows) {
    process.stdout.write(`| ${row.join(' | ')} |\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
