import { DataSource, QueryFailedError } from 'typeorm';
import { DriverSql, InsertTree } from '../../src/common/database/driver-sql';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { withQueries } from '../support/instruments';

/*
 * DriverSql runs the statements of every API request on the driver itself: the same rows and
 * errors as through TypeORM, each write all or nothing, on every engine.
 */
describeEachDatabase('DriverSql', (database) => {
  let ds: DataSource;
  let sql: DriverSql;
  let userId: number;
  let next = 0;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    sql = DriverSql.for(ds);
    userId = await newUser();
  });
  afterAll(async () => {
    await ds.destroy();
  });

  /** A user inserted through TypeORM; its id. */
  async function newUser(): Promise<number> {
    next += 1;
    const email = `user${next}@example.test`;
    await ds.query(
      "INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES (?, ?, 0, 'active', '2026-01-01 00:00:00')",
      [email, email.padEnd(64, '0')],
    );
    const [row] = await ds.query<Array<{ id: number }>>('SELECT id FROM user WHERE email = ?', [
      email,
    ]);
    return Number(row.id);
  }

  const scheduled = (text: string, children?: InsertTree['children']): InsertTree => ({
    sql: "INSERT INTO scheduled (id_user, at, text, flash, mms, created_at) VALUES (?, '2026-01-01 00:00:00', ?, 0, 0, '2026-01-01 00:00:00')",
    parameters: [userId, text],
    children,
  });
  const number = (id: number, value: string): InsertTree => ({
    sql: "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, ?, '[]', '2026-01-01 00:00:00')",
    parameters: [id, value],
  });
  const texts = async () =>
    (
      await ds.query<Array<{ text: string }>>(
        'SELECT text FROM scheduled WHERE id_user = ? ORDER BY id',
        [userId],
      )
    ).map((row) => row.text);
  const numbersOf = async (id: number) =>
    (
      await ds.query<Array<{ number: string }>>(
        'SELECT number FROM scheduled_number WHERE id_scheduled = ? ORDER BY id',
        [id],
      )
    ).map((row) => row.number);

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
});
