import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

/** A scratch database for one benchmark run, dropped afterwards. */
export interface BenchDatabase {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(target: string): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (target === 'sqlite') {
    return {
      url: `sqlite:${join(dataDir, 'bench.sqlite')}`,
      dataDir,
      drop: () => Promise.resolve(removeDir()),
    };
  }
  const admin = new URL(target.replace(/^mariadb:/, 'mysql:'));
  const name = `smsgw_bench_${randomBytes(4).toString('hex')}`;
  const connection = await createConnection(admin.toString());
  await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await connection.end();
  const url = new URL(admin.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    drop: async () => {
      const dropper = await createConnection(admin.toString());
      await dropper.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await dropper.end();
      removeDir();
    },
  };
}
