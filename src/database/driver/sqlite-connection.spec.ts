import Database from 'better-sqlite3';
import { LARGE_STATEMENT_VALUES, StatementCache } from './sqlite-connection';

describe('StatementCache', () => {
  let db: Database.Database;
  let cache: StatementCache;
  const prepare = jest.fn();

  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const prepareOnDb = db.prepare.bind(db);
    prepare.mockReset().mockImplementation((sql: string) => prepareOnDb(sql));
    cache = new StatementCache({ prepare } as unknown as Database.Database, 2);
  });
  afterEach(() => db.close());

  const insert = 'INSERT INTO t (v) VALUES (?)';
  const count = 'SELECT COUNT(*) AS n FROM t';
  const byValue = 'SELECT id FROM t WHERE v = ?';

  it('prepares a statement once while it is kept', () => {
    cache.prepared(insert).run('a');
    cache.prepared(insert).run('b');

    expect(prepare).toHaveBeenCalledTimes(1);
    expect(cache.prepared(count).get()).toEqual({ n: 2 });
  });

  it('lets the least recently used statement go first, not the oldest', () => {
    cache.prepared(insert);
    cache.prepared(count);
    cache.prepared(insert);
    cache.prepared(byValue);

    expect(cache.holds(insert)).toBe(true);
    expect(cache.holds(byValue)).toBe(true);
    expect(cache.holds(count)).toBe(false);
  });

  it('prepares an evicted statement again, which still works, and keeps at most its size', () => {
    cache.prepared(insert).run('a');
    cache.prepared(count);
    cache.prepared(byValue);
    expect(cache.holds(insert)).toBe(false);

    cache.prepared(insert).run('b');

    expect(prepare).toHaveBeenCalledTimes(4);
    expect(cache.prepared(byValue).all('b')).toEqual([{ id: 2 }]);
    expect([insert, count, byValue].filter((sql) => cache.holds(sql))).toHaveLength(2);
  });

  it('keeps large statements apart, fewer of them, without pushing the small ones out', () => {
    cache = new StatementCache({ prepare } as unknown as Database.Database, 2, 1);
    const rows = (values: number) =>
      `INSERT INTO t (v) VALUES ${Array.from({ length: values }, () => '(?)').join(', ')}`;
    cache.prepared(insert);
    cache.prepared(count);
    cache
      .prepared(rows(LARGE_STATEMENT_VALUES + 1))
      .run(Array.from({ length: LARGE_STATEMENT_VALUES + 1 }, (_, index) => `v${index}`));
    cache.prepared(rows(LARGE_STATEMENT_VALUES + 2));

    expect(cache.holds(insert)).toBe(true);
    expect(cache.holds(count)).toBe(true);
    expect(cache.holds(rows(LARGE_STATEMENT_VALUES + 1))).toBe(false);
    expect(cache.holds(rows(LARGE_STATEMENT_VALUES + 2))).toBe(true);
    // A statement of exactly the bound is not large: it goes among the others.
    cache.prepared(rows(LARGE_STATEMENT_VALUES));
    expect(cache.holds(rows(LARGE_STATEMENT_VALUES + 2))).toBe(true);
    expect(cache.prepared(count).get()).toEqual({ n: LARGE_STATEMENT_VALUES + 1 });
  });
});
