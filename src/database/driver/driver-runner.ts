import type { Database, Statement as PreparedStatement } from 'better-sqlite3';
import type { PoolConnection } from 'mysql2';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';

/** One statement with its bound values, as a body yields it to its runner. */
export interface Statement {
  sql: string;
  parameters: unknown[];
}

/** What a write did: the rows it changed and, for an INSERT, the id of the first row written. */
export interface Written {
  affected: number;
  /** Both engines number the rows of one INSERT consecutively (see DispatchRepository.record). */
  firstId: number;
}

/**
 * SQL work written once for every engine: a generator that yields its statements and is given
 * each one's result. The runner decides how they run: all within one synchronous call on
 * better-sqlite3, one round trip each on mysql2, or through a TypeORM manager. A body cannot
 * await anything else, so a transaction never waits for a provider, a thread or a timer.
 */
export type Sql<T> = Generator<Statement, T, unknown>;

/** The rows of a SELECT. */
export function* select<T>(sql: string, parameters: unknown[] = []): Sql<T[]> {
  return (yield { sql, parameters }) as T[];
}

/** Runs an INSERT, UPDATE or DELETE. */
export function* write(sql: string, parameters: unknown[] = []): Sql<Written> {
  return (yield { sql, parameters }) as Written;
}

/** Prepared SQLite statements kept per connection: IN lists and multi-row INSERTs vary in shape. */
const STATEMENTS_KEPT = 500;

/**
 * Runs bodies on the driver's own connection (better-sqlite3) or pool (mysql2), without
 * TypeORM's query runners, whose awaits per statement cost more than the statements when the
 * dispatch worker writes hundreds of rows per batch. As through a query runner, each statement
 * is told to the data source's logger, and its errors are TypeORM's `QueryFailedError`.
 */
export abstract class DriverRunner {
  static for(dataSource: DataSource): DriverRunner {
    return dataSource.options.type === 'mysql'
      ? new MysqlRunner(dataSource)
      : new SqliteRunner(dataSource);
  }

  /** Runs `body` in a transaction; `readCommitted` on MySQL sets that isolation level for it. */
  abstract transaction<T>(body: Sql<T>, readCommitted?: boolean): Promise<T>;

  /** Runs `body`'s statements outside of any transaction, each committed on its own. */
  abstract run<T>(body: Sql<T>): Promise<T>;
}

/** Runs `body` through a TypeORM manager: in its transaction when it holds one. */
export async function runOn<T>(manager: EntityManager, body: Sql<T>): Promise<T> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    return await driveAsync(body, async ({ sql, parameters }) => {
      const result = (await runner.query(sql, parameters, true)) as {
        raw: unknown;
        affected?: number;
      };
      const raw = result.raw;
      if (Array.isArray(raw)) {
        return raw as unknown[];
      }
      // better-sqlite3 reports the last rowid, mysql2 a header holding the first insert id.
      const affected = Number(result.affected ?? 0);
      return typeof raw === 'number' || typeof raw === 'bigint'
        ? { affected, firstId: Number(raw) - affected + 1 }
        : mysqlWritten(raw);
    });
  } finally {
    if (runner !== manager.queryRunner) {
      await runner.release();
    }
  }
}

function drive<T>(body: Sql<T>, execute: (statement: Statement) => unknown): T {
  let step = body.next();
  while (!step.done) {
    let result: unknown;
    try {
      result = execute(step.value);
    } catch (error) {
      step = body.throw(error);
      continue;
    }
    step = body.next(result);
  }
  return step.value;
}

async function driveAsync<T>(
  body: Sql<T>,
  execute: (statement: Statement) => Promise<unknown>,
): Promise<T> {
  let step = body.next();
  while (!step.done) {
    let result: unknown;
    try {
      result = await execute(step.value);
    } catch (error) {
      step = body.throw(error);
      continue;
    }
    step = body.next(result);
  }
  return step.value;
}

function mysqlWritten(header: unknown): Written {
  const { affectedRows, insertId } = header as { affectedRows: number; insertId: number };
  return { affected: Number(affectedRows), firstId: Number(insertId) };
}

/**
 * better-sqlite3 is synchronous: a body runs whole within one call, BEGIN IMMEDIATE to COMMIT,
 * so nothing else on the shared connection can slip in between its statements, and it needs no
 * lock. Only when another caller's transaction is open on the connection (a TypeORM transaction
 * awaiting something: src/database/sqlite-serializer.ts) does the body go through TypeORM, which
 * waits for that transaction's end, and for those already waiting, rather than read its
 * uncommitted rows or write into it.
 */
class SqliteRunner extends DriverRunner {
  private prepared: SqliteStatements | undefined;

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async transaction<T>(body: Sql<T>): Promise<T> {
    const statements = this.statements();
    if (statements.db.inTransaction) {
      return this.dataSource.transaction((manager) => runOn(manager, body));
    }
    return statements.db
      .transaction(() => drive(body, (statement) => statements.execute(statement)))
      .immediate();
  }

  async run<T>(body: Sql<T>): Promise<T> {
    const statements = this.statements();
    if (statements.db.inTransaction) {
      return runOn(this.dataSource.manager, body);
    }
    return drive(body, (statement) => statements.execute(statement));
  }

  private statements(): SqliteStatements {
    const db = (this.dataSource.driver as BetterSqlite3Driver).databaseConnection as Database;
    if (this.prepared?.db !== db) {
      this.prepared = new SqliteStatements(db, this.dataSource);
    }
    return this.prepared;
  }
}

/** One better-sqlite3 connection and the statements prepared on it, the least used going first. */
class SqliteStatements {
  private readonly cache = new Map<string, PreparedStatement>();

  constructor(
    readonly db: Database,
    private readonly dataSource: DataSource,
  ) {}

  execute({ sql, parameters }: Statement): unknown {
    const logger = this.dataSource.logger;
    logger.logQuery(sql, parameters);
    try {
      const statement = this.prepare(sql);
      if (statement.reader) {
        return statement.all(...parameters);
      }
      const { changes, lastInsertRowid } = statement.run(...parameters);
      return { affected: changes, firstId: Number(lastInsertRowid) - changes + 1 };
    } catch (error) {
      logger.logQueryError(error as Error, sql, parameters);
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  private prepare(sql: string): PreparedStatement {
    let statement = this.cache.get(sql);
    if (statement) {
      this.cache.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.cache.size >= STATEMENTS_KEPT) {
        this.cache.delete(this.cache.keys().next().value!);
      }
    }
    this.cache.set(sql, statement);
    return statement;
  }
}

/**
 * mysql2's pool as TypeORM configured it (charset, date strings, zone), one pooled connection
 * per body. Statements go as text (`query`): their shapes vary with IN lists and multi-row
 * INSERTs, and prepared ones would pile up on the server per connection.
 */
class MysqlRunner extends DriverRunner {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async transaction<T>(body: Sql<T>, readCommitted = false): Promise<T> {
    const connection = await this.connect();
    try {
      if (readCommitted) {
        await this.query(connection, 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED', []);
      }
      await this.query(connection, 'START TRANSACTION', []);
      try {
        const result = await driveAsync(body, ({ sql, parameters }) =>
          this.query(connection, sql, parameters),
        );
        await this.query(connection, 'COMMIT', []);
        return result;
      } catch (error) {
        // The statement's error is the one worth telling; a failed rollback ends with the
        // connection, which the server then rolls back itself.
        await this.query(connection, 'ROLLBACK', []).catch(() => undefined);
        throw error;
      }
    } finally {
      connection.release();
    }
  }

  async run<T>(body: Sql<T>): Promise<T> {
    const connection = await this.connect();
    try {
      return await driveAsync(body, ({ sql, parameters }) =>
        this.query(connection, sql, parameters),
      );
    } finally {
      connection.release();
    }
  }

  private query(connection: PoolConnection, sql: string, parameters: unknown[]): Promise<unknown> {
    const logger = this.dataSource.logger;
    logger.logQuery(sql, parameters);
    return new Promise((resolve, reject) => {
      connection.query(sql, parameters, (error, result) => {
        if (error) {
          logger.logQueryError(error, sql, parameters);
          reject(new QueryFailedError(sql, parameters, error));
        } else {
          resolve(Array.isArray(result) ? result : mysqlWritten(result));
        }
      });
    });
  }

  private connect(): Promise<PoolConnection> {
    return (
      this.dataSource.driver as MysqlDriver
    ).obtainMasterConnection() as Promise<PoolConnection>;
  }
}
