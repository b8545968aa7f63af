import { readFileSync } from 'node:fs';
import { createConnection, RowDataPacket } from 'mysql2/promise';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Database } from 'better-sqlite3';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { DriverSql, InsertTree, TREES_PER_COMMIT } from '../../src/database/driver/group-commit';
import { DriverRunner } from '../../src/database/driver/runner';
import { select } from '../../src/database/driver/sql';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { createTestDatabase, describeEachDatabase, TestDatabase } from '../support/databases';
import { waitFor, withQueries } from '../support/instruments';

/*
 * DriverSql runs the statements of every API request on the driver itself: the same rows and
 * errors as through TypeORM, each write all or nothing, on every engine. Concurrent writes
 * share commits, each in a savepoint of its own.
 */

/** A user inserted through TypeORM; its id. */
async function newUser(ds: DataSource, email: string): Promise<number> {
  await ds.query(
    "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES (?, ?, 0, 'active', '2026-01-01 00:00:00')",
    [email, email.padEnd(64, '0')],
  );
  const [row] = await ds.query<Array<{ id: number }>>('SELECT id FROM user WHERE email = ?', [
    email,
  ]);
  return Number(row.id);
}

const scheduledOf = (
  userId: number,
  text: string,
  children?: InsertTree['children'],
): InsertTree => ({
  sql:
    'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
    "VALUES (?, '2026-01-01 00:00:00', '2026-01-01 00:00:00', ?, 0, 0, '2026-01-01 00:00:00')",
  parameters: [userId, text],
  children,
});

const number = (id: number, value: string): InsertTree => ({
  sql: "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, ?, '[]', '2026-01-01 00:00:00')",
  parameters: [id, value],
});

/** The text of each scheduled message of the user, by id. */
async function textsById(ds: DataSource, userId: number): Promise<Map<number, string>> {
  const rows = await ds.query<Array<{ id: number; text: string }>>(
    'SELECT id, text FROM scheduled WHERE id_user = ? ORDER BY id',
    [userId],
  );
  return new Map(rows.map((row) => [Number(row.id), row.text]));
}

/** The COMMIT statements told to the data source's logger. */
const commitsIn = (queries: string[]) => queries.filter((query) => query === 'COMMIT').length;

/**
 * The commits SQLite wrote to the WAL file of the database at `path`: its frames that end a
 * transaction, counted from the file itself. Exact while nothing checkpoints the WAL (and so
 * restarts it): the tests turn automatic checkpoints off.
 */
function walCommits(path: string): number {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const salts = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    // Frames left from before the WAL's last restart carry the salts of that time.
    if (wal.readUInt32BE(at + 8) !== salts[0] || wal.readUInt32BE(at + 12) !== salts[1]) {
      break;
    }
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits += 1;
    }
  }
  return commits;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describeEachDatabase('DriverSql', (database) => {
  let ds: DataSource;
  let sql: DriverSql;
  let userId: number;
  let next = 0;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    if (database().kind === 'sqlite') {
      await ds.query('PRAGMA wal_autocheckpoint = 0');
    }
    sql = DriverSql.for(ds);
    userId = await newUser(ds, 'user@example.test');
  });
  afterAll(async () => {
    await ds.destroy();
  });

  const scheduled = (text: string, children?: InsertTree['children']) =>
    scheduledOf(userId, text, children);
  const texts = async () => [...(await textsById(ds, userId)).values()];
  const numbersOf = async (id: number) =>
    (
      await ds.query<Array<{ number: string }>>(
        'SELECT number FROM scheduled_number WHERE id_scheduled = ? ORDER BY id',
        [id],
      )
    ).map((row) => row.number);

  /**
   * Runs `action` and counts the commits meanwhile: as told to the logger and, on SQLite, as
   * written to the WAL file.
   */
  async function countingCommits<T>(
    action: () => Promise<T>,
  ): Promise<{ result: T; commits: number; walCommits?: number }> {
    const path = database().url.slice('sqlite:'.length);
    const before = database().kind === 'sqlite' ? walCommits(path) : 0;
    const { result, queries } = await withQueries(ds, action);
    return database().kind === 'sqlite'
      ? { result, commits: commitsIn(queries), walCommits: walCommits(path) - before }
      : { result, commits: commitsIn(queries) };
  }
  const expectedCommits = (commits: number) =>
    database().kind === 'sqlite' ? { commits, walCommits: commits } : { commits };

  /** `count` messages of one number each, inserted at once; each one's text and number. */
  const manyTrees = (label: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      text: `${label} ${i}`,
      number: `+336${String(next++).padStart(8, '0')}`,
    }));
  const insertAll = (trees: Array<{ text: string; number: string }>) =>
    Promise.all(
      trees.map(({ text, number: value }) =>
        sql.insert(scheduled(text, (parent) => [number(parent, value)])),
      ),
    );
  /** Each id resolved is the id of its own message, with its own number. */
  async function expectOwnIds(
    trees: Array<{ text: string; number: string }>,
    ids: number[],
  ): Promise<void> {
    const stored = await textsById(ds, userId);
    expect(ids.map((id) => stored.get(id))).toEqual(trees.map((tree) => tree.text));
    const numbers = await ds.query<Array<{ id_scheduled: number; number: string }>>(
      'SELECT n.id_scheduled, n.number FROM scheduled_number n JOIN scheduled s ON s.id = n.id_scheduled WHERE s.id_user = ?',
      [userId],
    );
    const parents = new Map(numbers.map((row) => [row.number, Number(row.id_scheduled)]));
    expect(trees.map((tree) => parents.get(tree.number))).toEqual(ids);
  }

  it('reads the rows of a SELECT, as the driver gives them through TypeORM', async () => {
    const select = 'SELECT id, email, status FROM user WHERE id = ?';

    const rows = await sql.select<{ id: number; email: string }>(select, [userId]);

    expect(rows).toEqual(await ds.query(select, [userId]));
    expect(await sql.select(select, [-1])).toEqual([]);
  });

  it('writes a row, then the rows given its id, and resolves to its id', async () => {
    const id = await sql.insert(
      scheduled('tree', (parent) => [
        number(parent, '+33600000001'),
        number(parent, '+33600000002'),
      ]),
    );

    expect(await numbersOf(id)).toEqual(['+33600000001', '+33600000002']);
    expect(await texts()).toContain('tree');
  });

  it('leaves none of the rows when one of them is refused, with a QueryFailedError', async () => {
    const before = await texts();
    const refused = {
      sql: 'INSERT INTO no_such_table (id) VALUES (?)',
      parameters: [1],
    };

    const error = await sql
      .insert(scheduled('half', (parent) => [number(parent, '+33600000003'), refused]))
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(QueryFailedError);
    expect(await texts()).toEqual(before);
  });

  it('tells each statement to the data source logger, as a query runner does', async () => {
    const { queries } = await withQueries(ds, () =>
      sql.insert(scheduled('logged', (parent) => [number(parent, '+33600000004')])),
    );

    expect(queries.filter((query) => /^INSERT/.test(query))).toHaveLength(2);
  });

  it('does not join a transaction another caller holds open, nor read its rows', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));
    const before = await texts();

    const rolledBack = ds
      .transaction(async (manager) => {
        await manager.query(scheduled('rolled back').sql, scheduled('rolled back').parameters);
        inside();
        await paused;
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    await started;
    const read = sql.select<{ text: string }>('SELECT text FROM scheduled WHERE id_user = ?', [
      userId,
    ]);
    const written = sql.insert(scheduled('kept', (parent) => [number(parent, '+33600000005')]));
    resume();

    expect(await rolledBack).toBe('rolled back on purpose');
    expect((await read).map((row) => row.text)).not.toContain('rolled back');
    expect(await numbersOf(await written)).toEqual(['+33600000005']);
    expect(await texts()).toEqual([...before, 'kept']);
  });

  it('writes the inserts of one moment in one commit, each answered with its own id', async () => {
    const trees = manyTrees('together', 30);

    const { result: ids, ...commits } = await countingCommits(() => insertAll(trees));

    expect(commits).toEqual(expectedCommits(1));
    expect(new Set(ids).size).toBe(30);
    await expectOwnIds(trees, ids);
  });

  it('writes the inserts that come while a group is written in the next group, together', async () => {
    const first = manyTrees('first', 1);
    const then = manyTrees('then', 10);

    const { result: ids, ...commits } = await countingCommits(async () => {
      const firstIds = insertAll(first);
      // The first group has left: it is being written (or, on SQLite, already is).
      await tick();
      return [...(await firstIds), ...(await insertAll(then))];
    });

    expect(commits).toEqual(expectedCommits(2));
    await expectOwnIds([...first, ...then], ids);
  });

  it(`cuts a flood into commits of at most ${TREES_PER_COMMIT} messages`, async () => {
    const trees = manyTrees('flood', 2 * TREES_PER_COMMIT + 100);

    const { result: ids, ...commits } = await countingCommits(() => insertAll(trees));

    expect(commits).toEqual(expectedCommits(3));
    await expectOwnIds(trees, ids);
  });

  it('rejects only the caller whose message is refused, with its QueryFailedError; the others are written', async () => {
    const before = await texts();
    const trees = manyTrees('beside', 2);
    // A number pointing at no message: refused by its foreign key, after its message's row.
    const refused = scheduled('refused', (parent) => [number(parent + 1_000_000, '+33699999999')]);

    const { result: outcomes, ...commits } = await countingCommits(() =>
      Promise.allSettled([
        sql.insert(scheduled(trees[0].text, (parent) => [number(parent, trees[0].number)])),
        sql.insert(refused),
        sql.insert(scheduled(trees[1].text, (parent) => [number(parent, trees[1].number)])),
      ]),
    );

    expect(commits).toEqual(expectedCommits(1));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const error = (outcomes[1] as PromiseRejectedResult).reason as QueryFailedError;
    expect(error).toBeInstanceOf(QueryFailedError);
    expect(error.query).toMatch(/^INSERT INTO [`"]?scheduled_number/);
    expect(await texts()).toEqual([...before, ...trees.map((tree) => tree.text)]);
    const ids = outcomes
      .filter((outcome) => outcome.status === 'fulfilled')
      .map((outcome) => outcome.value);
    await expectOwnIds(trees, ids);
  });

  it('rejects every caller of a group whose transaction cannot commit; none of it is written', async () => {
    const before = await texts();
    const trees = manyTrees('doomed', 3);
    const doomed = () =>
      trees.map(({ text, number: value }) =>
        sql.insert(scheduled(text, (parent) => [number(parent, value)])),
      );

    let outcomes: Array<PromiseSettledResult<number>>;
    if (database().kind === 'sqlite') {
      // Foreign keys checked at COMMIT, and a number pointing at no message: every savepoint
      // is released, then SQLite refuses the COMMIT.
      outcomes = await Promise.allSettled([
        ...doomed(),
        sql.insert({ sql: 'PRAGMA defer_foreign_keys = ON', parameters: [] }),
        sql.insert(number(1_000_000_000, '+33699999998')),
      ]);
      for (const outcome of outcomes) {
        expect((outcome as PromiseRejectedResult).reason).toEqual(
          expect.objectContaining({ query: 'COMMIT' }),
        );
      }
    } else {
      // InnoDB commits what it is asked to: the group's connection is killed while its last
      // tree waits for a lock another session holds.
      const lock = `smsgw_test_${process.pid}_${Date.now()}`;
      const side = await createConnection(database().url);
      try {
        await side.query('SELECT GET_LOCK(?, 30)', [lock]);
        const group = Promise.allSettled([
          ...doomed(),
          sql.insert({ sql: 'DO GET_LOCK(?, 30)', parameters: [lock] }),
        ]);
        let id: number | undefined;
        await waitFor(async () => {
          const [rows] = await side.query<Array<{ ID: number } & RowDataPacket>>(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'DO GET_LOCK(%' AND DB = DATABASE()",
          );
          id = rows[0]?.ID;
          return id !== undefined;
        }, 'the group to wait for the lock');
        await side.query(`KILL CONNECTION ${Number(id)}`);
        outcomes = await group;
      } finally {
        await side.end();
      }
    }

    expect(outcomes.map((outcome) => outcome.status)).toEqual(outcomes.map(() => 'rejected'));
    for (const outcome of outcomes) {
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(QueryFailedError);
    }
    expect(await texts()).toEqual(before);
    // The next group has a connection, and a transaction, of its own.
    const after = manyTrees('after', 2);
    await expectOwnIds(after, await insertAll(after));
  });
});

/*
 * On SQLite the dispatch worker's transaction holds the one connection: the writes of the
 * moment wait for it together, and its next transaction waits for one group of them at most.
 */
describe('DriverSql beside a transaction held open [sqlite]', () => {
  let database: TestDatabase;
  let ds: DataSource;
  let sql: DriverSql;
  let userId: number;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    ds = await openTestDataSource(database);
    await migrate(ds);
    sql = DriverSql.for(ds);
    userId = await newUser(ds, 'user@example.test');
  });
  afterAll(async () => {
    await ds.destroy();
    await database.drop();
  });

  const insertMany = (label: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        sql.insert(
          scheduledOf(userId, `${label} ${i}`, (parent) => [number(parent, '+33600000001')]),
        ),
      ),
    );
  const worker = (manager: EntityManager, text: string) =>
    manager.query(scheduledOf(userId, text).sql, scheduledOf(userId, text).parameters);

  it('prepares a statement once for the runner and the group commit alike', async () => {
    const db = (ds.driver as BetterSqlite3Driver).databaseConnection as Database;
    const prepare = jest.spyOn(db, 'prepare');
    const read = 'SELECT id FROM user WHERE id = ? AND 1 = 1';
    try {
      const viaRunner = await DriverRunner.for(ds).run(select(read, [userId]));
      const viaGroupCommit = await sql.select(read, [userId]);

      expect(viaGroupCommit).toEqual(viaRunner);
      expect(prepare.mock.calls.filter(([text]) => text === read)).toHaveLength(1);
    } finally {
      prepare.mockRestore();
    }
  });

  it('waits for it as one group, and its next transaction waits for that group alone', async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    let inside!: () => void;
    const started = new Promise<void>((resolve) => (inside = resolve));

    const { result, queries } = await withQueries(ds, async () => {
      const held = ds.transaction(async (manager) => {
        await worker(manager, 'worker first');
        inside();
        await paused;
      });
      await started;
      // More than a group: the first TREES_PER_COMMIT wait for the transaction as one.
      const flood = insertMany('flood', TREES_PER_COMMIT + 50);
      await tick();
      await tick();
      const nextTransaction = ds.transaction((manager) => worker(manager, 'worker next'));
      await tick();
      const later = insertMany('later', 10);
      resume();
      await held;
      return { flood: await flood, worker: await nextTransaction, later: await later };
    });

    expect(commitsIn(queries)).toBe(4);
    const stored = await textsById(ds, userId);
    const order = [...stored.values()].map((text) => text.replace(/ \d+$/, ''));
    expect(order).toEqual([
      'worker first',
      ...Array<string>(TREES_PER_COMMIT).fill('flood'),
      'worker next',
      ...Array<string>(50).fill('flood'),
      ...Array<string>(10).fill('later'),
    ]);
    expect(result.flood.map((id) => stored.get(id))).toEqual(
      Array.from({ length: TREES_PER_COMMIT + 50 }, (_, i) => `flood ${i}`),
    );
    expect(result.later.map((id) => stored.get(id))).toEqual(
      Array.from({ length: 10 }, (_, i) => `later ${i}`),
    );
  });
});
