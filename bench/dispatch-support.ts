import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/config/configuration';
import { validateEnvironment } from '../src/config/env.validation';
import { rowMarks } from '../src/database/driver/placeholders';
import { BenchDatabase } from './database';

/* What the scenarios of bench:dispatch share: seeding, the dispatching processes, /proc readings. */

export const DIST = join(__dirname, '..', 'dist');
export const MYSQL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const BATCH = 500;
/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;
export const STAMP = '2020-01-01 00:00:00';
/** The campaign waits until the workers are up: their boot is not part of the rate. */
export const NOT_YET = '2999-01-01 00:00:00';

/** A way to run the dispatch: the built script, how many processes, their own environment. */
export interface Setup {
  name: string;
  script: string;
  processes: number;
  env: Record<string, string>;
}

export const SQLITE_INLINE: Setup = {
  name: 'inline (API process)',
  script: 'main.js',
  processes: 1,
  env: { WORKER: 'inline' },
};
export const WORKERS_1: Setup = {
  name: '1 worker process',
  script: 'worker.js',
  processes: 1,
  env: {},
};
export const WORKERS_3: Setup = {
  name: '3 worker processes',
  script: 'worker.js',
  processes: 3,
  env: {},
};

export function configFor(database: BenchDatabase): AppConfig {
  return new AppConfig(
    validateEnvironment({
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
    }),
  );
}

export const insertedId = (result: unknown): number =>
  typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The machine line every scenario's output starts with. */
export function machineLine(): string {
  return `bench:dispatch on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n\n`;
}

export async function seedUser(ds: DataSource): Promise<number> {
  return insertedId(
    await ds.query(
      "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES ('bench@example.test', ?, 0, 'active', ?)",
      ['0'.repeat(64), STAMP],
    ),
  );
}

/** An available phone of `user`; `adapterData` as stored (secret fields already sealed). */
export async function seedPhone(
  ds: DataSource,
  user: number,
  name: string,
  adapter: string,
  adapterData = '{}',
): Promise<number> {
  return insertedId(
    await ds.query(
      "INSERT INTO phone (id_user, name, adapter, adapter_data, priority, status, created_at) VALUES (?, ?, ?, ?, 0, 'available', ?)",
      [user, name, adapter, adapterData, STAMP],
    ),
  );
}

/**
 * Messages of `text` from `user` through `phone` to `recipients` numbers (from +336`firstNumber`
 * on), not due yet: one message to them all, or one message each.
 */
export async function seedMessages(
  ds: DataSource,
  user: number,
  phone: number,
  recipients: number,
  text: string,
  messages: 'one' | 'each',
  firstNumber = 10_000_000,
): Promise<void> {
  for (let start = 0; start < (messages === 'one' ? 1 : recipients); start += BATCH) {
    const count = messages === 'one' ? 1 : Math.min(BATCH, recipients - start);
    await ds.query(
      'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, id_phone, created_at) ' +
        `VALUES ${rowMarks(count, 8)}`,
      Array.from({ length: count }, () => [
        user,
        NOT_YET,
        NOT_YET,
        text,
        0,
        0,
        phone,
        STAMP,
      ]).flat(),
    );
  }
  const scheduled = (
    await ds.query<Array<{ id: number }>>(
      'SELECT id FROM scheduled WHERE id_phone = ? ORDER BY id',
      [phone],
    )
  ).map((row) => Number(row.id));
  for (let start = 0; start < recipients; start += BATCH) {
    const count = Math.min(BATCH, recipients - start);
    await ds.query(
      'INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES ' +
        rowMarks(count, 4),
      Array.from({ length: count }, (_, index) => [
        scheduled[messages === 'one' ? 0 : start + index],
        `+336${firstNumber + start + index}`,
        '{"firstname":"Ada"}',
        STAMP,
      ]).flat(),
    );
  }
}

/** Every scheduled message due now: the moment the measured dispatch starts. */
export async function releaseMessages(ds: DataSource): Promise<void> {
  await ds.query('UPDATE scheduled SET at = ?, send_after = ?', [STAMP, STAMP]);
}

/**
 * The dispatching processes of `setup` on `database`, once each has registered as a worker:
 * their boot is not part of what is measured. `onLog` is given each line they log (pino JSON at
 * LOG_LEVEL warn); without it their logs are dropped.
 */
export async function startDispatchers(
  ds: DataSource,
  database: BenchDatabase,
  setup: Setup,
  onLog?: (line: string) => void,
): Promise<ChildProcess[]> {
  const children: ChildProcess[] = [];
  for (let i = 0; i < setup.processes; i++) {
    children.push(
      spawn(process.execPath, [join(DIST, setup.script)], {
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: database.url,
          DATA_DIR: database.dataDir,
          LOG_LEVEL: 'warn',
          DISPATCH_POLL_MS: process.env.BENCH_POLL_MS ?? '20',
          PORT: '0',
          HOST: '127.0.0.1',
          ...setup.env,
        },
        stdio: ['ignore', onLog ? 'pipe' : 'ignore', 'inherit'],
      }),
    );
  }
  if (onLog) {
    for (const child of children) {
      createInterface({ input: child.stdout! }).on('line', onLog);
    }
  }
  try {
    for (;;) {
      const [row] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM worker',
      );
      if (Number(row.n) >= setup.processes) {
        return children;
      }
      const dead = children.find((child) => child.exitCode !== null || child.signalCode !== null);
      if (dead) {
        throw new Error(
          `${setup.script} exited (${dead.exitCode ?? dead.signalCode}) before it was up`,
        );
      }
      await sleep(50);
    }
  } catch (error) {
    await stopDispatchers(children);
    throw error;
  }
}

export async function stopDispatchers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
}

/** CPU seconds a process has used, all its threads (user and system, /proc in clock ticks). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
