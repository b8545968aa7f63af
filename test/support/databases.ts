import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

export type DatabaseKind = 'sqlite' | 'mariadb';

/** A database of its own for one test file: a fresh SQLite file, or a fresh MariaDB schema. */
export interface TestDatabase {
  kind: DatabaseKind;
  /** The DATABASE_URL of this database. */
  url: string;
  /** A folder of its own, usable as DATA_DIR. */
  dataDir: string;
  drop(): Promise<void>;
}

/** The engines the database tests run on: SQLite always, MariaDB when TEST_MYSQL_URL is set. */
export const DATABASE_KINDS: DatabaseKind[] = process.env.TEST_MYSQL_URL
  ? ['sqlite', 'mariadb']
  : ['sqlite'];

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-test-'));
  if (kind === 'sqlite') {
    return {
      kind,
      url: `sqlite:${join(dataDir, 'smsgw.sqlite')}`,
      dataDir,
      drop: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
    };
  }
  const adminUrl = new URL(process.env.TEST_MYSQL_URL as string);
  const name = `smsgw_test_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection(adminUrl.toString());
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  await admin.end();
  const url = new URL(adminUrl.toString());
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    dataDir,
    drop: async () => {
      const connection = await createConnection(adminUrl.toString());
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a describe block once per engine, each with its own database, created before and dropped
 * after the block. `database()` gives the current one inside hooks and tests.
 */
export function describeEachDatabase(
  title: string,
  body: (database: () => TestDatabase) => void,
): void {
  for (const kind of DATABASE_KINDS) {
    describe(`${title} [${kind}]`, () => {
      let current: TestDatabase | undefined;
      beforeAll(async () => {
        current = await createTestDatabase(kind);
      });
      body(() => {
        if (!current) {
          throw new Error('the test database is not ready yet');
        }
        return current;
      });
      // Declared after the body's hooks, as jest runs afterAll hooks in their order: the body's
      // app is closed (its worker's last queries included) before its database is dropped.
      afterAll(async () => {
        await current?.drop();
      });
    });
  }
}
