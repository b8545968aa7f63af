import type { Database, Statement as Prepared } from 'better-sqlite3';
import { DataSource, QueryFailedError } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { drive, Sql, Statement, written } from './sql';

/**
 * Prepared statements kept per connection. The dispatch worker's bodies and the API's requests
 * share them, and IN lists and multi-row INSERTs give one shape per count, up to their chunk
 * sizes: 500 holds a batch's shapes beside the API's few fixed statements. The least recently
 * used goes first, so that a burst of shapes does not push out the statements every request runs.
 */
export const STATEMENTS_KEPT = 500;

/**
 * Statements binding more values than this are large: SQLite's program for a multi-row INSERT
 * grows with its values, to about 1 MB for a batch of 250 `sended` rows, where a statement of a
 * few values takes a few kilobytes.
 */
export const LARGE_STATEMENT_VALUES = 100;

/**
 * Large statements kept, apart from the others: the shapes of full batches (about six) are run
 * again and again, while each other count (the last chunk of a message, a batch cut short) is
 * rarely run twice, and 500 of those kept would hold hundreds of megabytes.
 */
export const LARGE_STATEMENTS_KEPT = 8;

/** Statements prepared on one connection, by their text; the least recently used goes first. */
export class StatementCache {
  private readonly kept: LeastRecentlyUsed;
  private readonly large: LeastRecentlyUsed;

  constructor(
    private readonly db: Database,
    size = STATEMENTS_KEPT,
    largeSize = LARGE_STATEMENTS_KEPT,
  ) {
    this.kept = new LeastRecentlyUsed(size);
    this.large = new LeastRecentlyUsed(largeSize);
  }

  /** `sql` prepared, once while it stays among the most recently used of its size. */
  prepared(sql: string): Prepared {
    for (const lru of [this.kept, this.large]) {
      const statement = lru.take(sql);
      if (statement) {
        lru.put(sql, statement);
        return statement;
      }
    }
    const statement = this.db.prepare(sql);
    (isLarge(sql) ? this.large : this.kept).put(sql, statement);
    return statement;
  }

  /** Whether `sql` is prepared and kept. */
  holds(sql: string): boolean {
    return this.kept.has(sql) || this.large.has(sql);
  }
}

/** Whether `sql` binds more than LARGE_STATEMENT_VALUES values. */
function isLarge(sql: string): boolean {
  let values = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', at + 1)) {
    if (++values > LARGE_STATEMENT_VALUES) {
      return true;
    }
  }
  return false;
}

/** Prepared statements by their text, the least recently used first to go. */
class LeastRecentlyUsed {
  private readonly kept = new Map<string, Prepared>();

  constructor(private readonly size: number) {}

  /** The statement, removed: `put` it back to make it the most recent. */
  take(sql: string): Prepared | undefined {
    const statement = this.kept.get(sql);
    if (statement) {
      this.kept.delete(sql);
    }
    return statement;
  }

  /** Keeps the statement as the most recent (Map keeps insertion order), the oldest going. */
  put(sql: string, statement: Prepared): void {
    if (this.kept.size >= this.size) {
      this.kept.delete(this.kept.keys().next().value!);
    }
    this.kept.set(sql, statement);
  }

  has(sql: string): boolean {
    return this.kept.has(sql);
  }
}

/**
 * The better-sqlite3 connection TypeORM opened, with the statements prepared on it: one per
 * connection, shared by the runner and the group commit. better-sqlite3 is synchronous: a body
 * runs whole within one call, so nothing else on the connection can slip in between its
 * statements. As through a query runner, each statement is told to the data source's logger,
 * and its errors are TypeORM's `QueryFailedError`.
 */
export class SqliteConnection {
  private static readonly connections = new WeakMap<Database, SqliteConnection>();

  static of(dataSource: DataSource): SqliteConnection {
    const db = (dataSource.driver as BetterSqlite3Driver).databaseConnection as Database;
    let connection = SqliteConnection.connections.get(db);
    if (!connection) {
      connection = new SqliteConnection(db, dataSource);
      SqliteConnection.connections.set(db, connection);
    }
    return connection;
  }

  readonly statements: StatementCache;

  private constructor(
    private readonly db: Database,
    private readonly dataSource: DataSource,
  ) {
    this.statements = new StatementCache(db);
  }

  /**
   * Whether another caller's transaction is open on the connection: a TypeORM transaction
   * awaiting something (src/database/sqlite-serializer.ts). Work must then go through TypeORM,
   * which waits for that transaction's end, and for those already waiting, rather than read its
   * uncommitted rows or write into it.
   */
  get busy(): boolean {
    return this.db.inTransaction;
  }

  /** The rows of a statement that reads, the `Written` of one that writes. */
  execute({ sql, parameters }: Statement): unknown {
    const logger = this.dataSource.logger;
    logger.logQuery(sql, parameters);
    try {
      const statement = this.statements.prepared(sql);
      // The array itself, not spread into arguments: a batch's statements bind thousands.
      return statement.reader ? statement.all(parameters) : written(statement.run(parameters));
    } catch (error) {
      logger.logQueryError(error as Error, sql, parameters);
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  /** Runs `body`'s statements, each committed on its own. */
  run<T>(body: Sql<T>): T {
    return drive(body, (statement) => this.execute(statement));
  }

  /**
   * Runs `body` in a transaction, BEGIN IMMEDIATE to COMMIT: the write lock is taken first, so
   * that another process's write never makes a read-then-write transaction fail at its write.
   */
  transaction<T>(body: Sql<T>): T {
    this.execute(BEGIN);
    try {
      const result = this.run(body);
      this.execute(COMMIT);
      return result;
    } catch (error) {
      // A refused COMMIT (a deferred constraint) leaves the transaction open; an I/O error may
      // have ended it already.
      if (this.db.inTransaction) {
        this.execute(ROLLBACK);
      }
      throw error;
    }
  }
}

const BEGIN: Statement = { sql: 'BEGIN IMMEDIATE', parameters: [] };
const COMMIT: Statement = { sql: 'COMMIT', parameters: [] };
const ROLLBACK: Statement = { sql: 'ROLLBACK', parameters: [] };
