import type { Database, Statement } from 'better-sqlite3';
import type { PoolConnection } from 'mysql2';
import { DataSource, EntityManager, Logger, QueryFailedError } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';

/** An INSERT with its bound values, and the rows to insert once its row's id is known. */
export interface InsertTree {
  sql: string;
  parameters: unknown[];
  /** Rows that point at this one, given its generated id. */
  children?: (id: number) => InsertTree[];
}

/** Prepared SQLite statements kept, as TypeORM keeps them: the oldest goes first. */
const STATEMENTS_KEPT = 100;

/**
 * SQL run on the driver's own connection (better-sqlite3) or pool (mysql2), for the statements
 * of every API request: the key lookup and the get_send_sms insert. TypeORM's query runners
 * wrap each statement in several awaits (events, statement cache, connection) and, under load,
 * those promises cost more than the statements: each one also pays for the request context
 * that AsyncLocalStorage carries (bench:api, bench/profile.ts). As through a query runner,
 * each statement is told to the data source's logger, and its errors are TypeORM's
 * `QueryFailedError`; a connection that cannot be had throws the driver's error.
 */
export abstract class DriverSql {
  static for(dataSource: DataSource): DriverSql {
    return dataSource.options.type === 'mysql'
      ? new MysqlSql(dataSource)
      : new SqliteSql(dataSource);
  }

  /** The rows a SELECT gives. */
  abstract select<T>(sql: string, parameters: unknown[]): Promise<T[]>;

  /** Writes `tree` in a transaction of its own; resolves to the id of its first row. */
  abstract insert(tree: InsertTree): Promise<number>;
}

/** Writes `tree` inside the transaction `manager` holds; resolves to the id of its first row. */
export async function insertWith(manager: EntityManager, tree: InsertTree): Promise<number> {
  const result: unknown = await manager.query(tree.sql, tree.parameters);
  // better-sqlite3 answers an INSERT with the new rowid, mysql2 with a header holding it.
  const id =
    typeof result === 'number' || typeof result === 'bigint'
      ? Number(result)
      : Number((result as { insertId: number }).insertId);
  for (const child of tree.children?.(id) ?? []) {
    await insertWith(manager, child);
  }
  return id;
}

/**
 * better-sqlite3 is synchronous: a read, or a whole transaction, runs within one turn of the
 * event loop, so nothing else can slip in between its statements. When another caller's
 * transaction is open on the shared connection (it awaits something), the work goes through
 * TypeORM instead, which waits for that transaction's end (src/database/sqlite-serializer.ts)
 * rather than reading its uncommitted rows or writing into it.
 */
class SqliteSql extends DriverSql {
  private prepared: PreparedConnection | undefined;

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async select<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const connection = this.connection();
    return connection.db.inTransaction
      ? this.dataSource.query<T[]>(sql, parameters)
      : connection.all<T>(sql, parameters);
  }

  async insert(tree: InsertTree): Promise<number> {
    const connection = this.connection();
    return connection.db.inTransaction
      ? this.dataSource.transaction((manager) => insertWith(manager, tree))
      : connection.insert(tree);
  }

  /** The connection TypeORM opened, with the statements prepared on it. */
  private connection(): PreparedConnection {
    const db = (this.dataSource.driver as BetterSqlite3Driver).databaseConnection as Database;
    if (this.prepared?.db !== db) {
      this.prepared = new PreparedConnection(db, this.dataSource.logger);
    }
    return this.prepared;
  }
}

/** One better-sqlite3 connection and the statements prepared on it, each prepared once. */
class PreparedConnection {
  private readonly statements = new Map<string, Statement>();
  readonly insert: (tree: InsertTree) => number;

  constructor(
    readonly db: Database,
    private readonly logger: Logger,
  ) {
    this.insert = db.transaction((tree: InsertTree) => this.write(tree));
  }

  all<T>(sql: string, parameters: unknown[]): T[] {
    return this.run(sql, parameters, (statement) => statement.all(...parameters) as T[]);
  }

  private write(tree: InsertTree): number {
    const { lastInsertRowid } = this.run(tree.sql, tree.parameters, (statement) =>
      statement.run(...tree.parameters),
    );
    const id = Number(lastInsertRowid);
    for (const child of tree.children?.(id) ?? []) {
      this.write(child);
    }
    return id;
  }

  private run<R>(sql: string, parameters: unknown[], action: (statement: Statement) => R): R {
    this.logger.logQuery(sql, parameters);
    try {
      return action(this.statement(sql));
    } catch (error) {
      this.logger.logQueryError(error as Error, sql, parameters);
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
      if (this.statements.size > STATEMENTS_KEPT) {
        this.statements.delete(this.statements.keys().next().value!);
      }
    }
    return statement;
  }
}

/** mysql2's pool as TypeORM configured it (charset, date strings, zone). */
class MysqlSql extends DriverSql {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async select<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const connection = await this.connect();
    try {
      return await this.query<T[]>(connection, sql, parameters);
    } finally {
      connection.release();
    }
  }

  async insert(tree: InsertTree): Promise<number> {
    const connection = await this.connect();
    try {
      await this.query(connection, 'START TRANSACTION', []);
      try {
        const id = await this.write(connection, tree);
        await this.query(connection, 'COMMIT', []);
        return id;
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

  private async write(connection: PoolConnection, tree: InsertTree): Promise<number> {
    const header = await this.query<{ insertId: number | string }>(
      connection,
      tree.sql,
      tree.parameters,
    );
    const id = Number(header.insertId);
    for (const child of tree.children?.(id) ?? []) {
      await this.write(connection, child);
    }
    return id;
  }

  private query<T>(connection: PoolConnection, sql: string, parameters: unknown[]): Promise<T> {
    const logger = this.dataSource.logger;
    logger.logQuery(sql, parameters);
    return new Promise((resolve, reject) => {
      connection.query(sql, parameters, (error, result) => {
        if (error) {
          logger.logQueryError(error, sql, parameters);
          reject(new QueryFailedError(sql, parameters, error));
        } else {
          resolve(result as T);
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
