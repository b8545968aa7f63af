import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { migrate, openDataSource } from '../src/database/data-source';
import { rowMarks } from '../src/database/driver/placeholders';
import { createBenchDatabase } from './database';
import { runPacing } from './dispatch-pacing';
import { runPriority } from './dispatch-priority';
import {
  BATCH,
  MYSQL,
  SQLITE_INLINE,
  STAMP,
  Setup,
  WORKERS_1,
  WORKERS_3,
  configFor,
  cpuSeconds,
  machineLine,
  releaseMessages,
  rssMiB,
  seedMessages,
  seedPhone,
  seedUser,
  sleep,
  startDispatchers,
  stopDispatchers,
} from './dispatch-support';

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
 * Runs the built processes: `npm run build` first. BENCH_SCENARIOS (default throughput,pacing:
 * this throughput, then per-phone pacing, bench/dispatch-pacing.ts, whose own variables are
 * documented there; `priority`, high-priority sends during a campaign, bench/dispatch-priority.ts,
 * runs when named), BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306/test, "off" to skip),
 * BENCH_RECIPIENTS (default 20000,100000,300000), BENCH_TEXTS (default template,plain),
 * BENCH_ENGINES (default SQLite,MariaDB), BENCH_MESSAGES (default one,each: the recipients in one
 * message, or one message per recipient), BENCH_POLL_MS (default 20, the processes'
 * DISPATCH_POLL_MS).
 */

const SIZES = (process.env.BENCH_RECIPIENTS ?? '20000,100000,300000').split(',').map(Number);
const TEXTS: Readonly<Record<string, string>> = {
  template: 'Hello {{ contact.firstname }}',
  plain: 'Hello Ada',
};
const TEXT_KINDS = (process.env.BENCH_TEXTS ?? 'template,plain').split(',');
const MESSAGE_KINDS = (process.env.BENCH_MESSAGES ?? 'one,each').split(',');
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'throughput,pacing').split(',');

interface Run {
  setup: string;
  recipients: number;
  seconds: number;
  rate: number;
  /** CPU time of the dispatching processes (all their threads) per 1,000 recipients. */
  cpuMsPerThousand: number;
  peakRssMiB: number;
}

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
  const user = await seedUser(ds);
  const phone = await seedPhone(ds, user, 'bench', 'benchmark');
  await seedMessages(ds, user, phone, recipients, text, messages);
}

async function dispatchRun(
  engine: string,
  target: string,
  recipients: number,
  text: string,
  messages: 'one' | 'each',
  setup: Setup,
): Promise<Run> {
  const database = await createBenchDatabase(target);
  const config = configFor(database);
  const ds = await openDataSource(config.database, secretCipher(config));
  let children: Awaited<ReturnType<typeof startDispatchers>> = [];
  try {
    await migrate(ds);
    await seedCampaign(ds, recipients, text, messages);
    children = await startDispatchers(ds, database, setup);
    const cpu = () => children.reduce((sum, child) => sum + cpuSeconds(child.pid ?? 0), 0);
    const cpuBefore = cpu();
    const started = process.hrtime.bigint();
    await releaseMessages(ds);
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
      await sleep(50);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      setup: `${engine} ${setup.name}`,
      recipients,
      seconds,
      rate: recipients / seconds,
      cpuMsPerThousand: ((cpu() - cpuBefore) * 1e6) / recipients,
      peakRssMiB: peak,
    };
  } finally {
    await stopDispatchers(children);
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
  const sql = `INSERT INTO sended (${columns}) VALUES ${rowMarks(rows, columns.split(',').length)}`;
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

async function throughput(): Promise<void> {
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
  const rows: Array<Array<string | number>> = [];
  const only = process.env.BENCH_ENGINES?.split(',');
  const engines: Array<[string, string, Setup[]]> = [['SQLite', 'sqlite', [SQLITE_INLINE]]];
  if (MYSQL !== 'off') {
    engines.push(['MariaDB', MYSQL, [WORKERS_1, WORKERS_3]]);
  }
  for (const [engine, target, setups] of engines.filter(([name]) => !only || only.includes(name))) {
    for (const recipients of SIZES) {
      const multiRow = await rawInsertRate(target, recipients, 'multi-row');
      const rowByRow = await rawInsertRate(target, recipients, 'row by row');
      for (const setup of setups) {
        for (const [kind, messages] of TEXT_KINDS.flatMap((text) =>
          shapes.map((shape) => [text, shape] as const),
        )) {
          const run = await dispatchRun(engine, target, recipients, TEXTS[kind], messages, setup);
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

async function main(): Promise<void> {
  const unknown = SCENARIOS.filter(
    (name) => name !== 'throughput' && name !== 'pacing' && name !== 'priority',
  );
  if (unknown.length > 0) {
    throw new Error(
      `BENCH_SCENARIOS: unknown ${unknown.join(', ')} (throughput, pacing, priority)`,
    );
  }
  process.stdout.write(machineLine());
  if (SCENARIOS.includes('throughput')) {
    await throughput();
  }
  if (SCENARIOS.includes('pacing')) {
    await runPacing();
  }
  if (SCENARIOS.includes('priority')) {
    await runPriority();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
