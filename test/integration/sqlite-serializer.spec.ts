import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';

/*
 * On SQLite one connection serves the whole process: a transaction must not take in the queries
 * of other callers that run while it waits (the inline worker beside API requests).
 */
describe('SQLite transactions beside other callers', () => {
  let database: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    ds = await openTestDataSource(database);
    await migrate(ds);
  });
  afterAll(async () => {
    await ds.destroy();
    await database.drop();
  });

  const emails = async (): Promise<string[]> =>
    (await ds.query<Array<{ email: string }>>('SELECT email FROM user ORDER BY email')).map(
      (row) => row.email,
    );
  const insertUser = (
    runner: { query(sql: string, parameters: unknown[]): Promise<unknown> },
    email: string,
  ) =>
    runner.query(
      "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES (?, ?, 0, 'active', '2026-01-01 00:00:00')",
      [email, email.padEnd(64, '0')],
    );

  it('keeps the writes of others when a transaction that was open meanwhile rolls back', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));

    const rolledBack = ds
      .transaction(async (manager) => {
        await insertUser(manager, 'worker@example.test');
        inside();
        await paused;
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    await started;
    const standalone = insertUser(ds, 'request@example.test');
    const other = ds.transaction((manager) => insertUser(manager, 'other@example.test'));
    resume();

    expect(await rolledBack).toBe('rolled back on purpose');
    await standalone;
    await other;
    expect(await emails()).toEqual(['other@example.test', 'request@example.test']);
  });

  it('lets a transaction run its own queries in parallel', async () => {
    await ds.transaction(async (manager) => {
      await Promise.all([
        insertUser(manager, 'a@example.test'),
        insertUser(manager, 'b@example.test'),
      ]);
    });

    expect(await emails()).toEqual(expect.arrayContaining(['a@example.test', 'b@example.test']));
  });
});
