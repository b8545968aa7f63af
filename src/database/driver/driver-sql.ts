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
 * Trees per commit. A flood of writes is cut into several commits, so that none holds the
 * connection (on SQLite, the event loop; under the dispatch worker's transaction, the worker)
 * for long.
 */
export const TREES_PER_COMMIT = 500;

/** Each tree of a group is written inside this savepoint. */
const SAVEPOINT = 'SAVEPOINT tree';
const ROLLBACK_TO_SAVEPOINT = 'ROLLBACK TO SAVEPOINT tree';
const RELEASE_SAVEPOINT = 'RELEASE SAVEPOINT tree';

/** What became of one tree of a group: the id of its first row, or why it was refused. */
type Outcome = { id: number } | { error: unknown };

/** A tree waiting for its group, and its caller. */
interface Waiting {
  tree: InsertTree;
  resolve(id: number): void;
  reject(error: unknown): void;
}

/**
 * SQL run on the driver's own connection (better-sqlite3) or pool (mysql2), for the statements
 * of every API request: the key lookup and the get_send_sms insert. TypeORM's query runners
 * wrap each statement in several awaits (events, statement cache, connection) and, under load,
 * those promises cost more than the statements: each one also pays for the request context
 * that AsyncLocalStorage carries (bench:api, bench/profile.ts). As through a query runner,
 * each statement is told to the data source's logger, and its errors are TypeORM's
 * `QueryFailedError`; a connection that cannot be had throws the driver's error.
 *
 * Inserts are committed in groups. Every commit is synced to disk (on SQLite, with the event
 * loop blocked meanwhile): one sync for all the messages of the moment rather than one each.
 * The trees that arrive during one turn of the event loop, or while the previous group is being
 * written, go together in one transaction, each in a savepoint of its own so that a refused
 * tree is undone alone; every caller is answered once that transaction is committed, never
 * before: an answered message survives the process being killed.
 */
export abstract class DriverSql {
  private static readonly instances = new WeakMap<DataSource, DriverSql>();

  /** The driver of `dataSource`, one per data source: all of its inserts share the groups. */
  static for(dataSource: DataSource): DriverSql {
    let sql = DriverSql.instances.get(dataSource);
    if (!sql) {
      sql =
        dataSource.options.type === 'mysql' ? new MysqlSql(dataSource) : new SqliteSql(dataSource);
      DriverSql.instances.set(dataSource, sql);
    }
    return sql;
  }

  private readonly waiting: Waiting[] = [];
  private flushing = false;
  private groupsInFlight = 0;

  /** Groups written at the same time, each in its own transaction. */
  protected abstract readonly maxGroupsInFlight: number;

  /** The rows a SELECT gives. */
  abstract select<T>(sql: string, parameters: unknown[]): Promise<T[]>;

  /**
   * Writes `tree` in a savepoint of its own, in a transaction shared with the other inserts of
   * the moment; resolves to the id of its first row once that transaction is committed. A
   * refused statement rejects with its error and undoes this tree alone; a failed commit, or a
   * failure that ends the transaction (a deadlock, a lost connection), rejects every tree of
   * the group with that error, none of them written.
   */
  insert(tree: InsertTree): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ tree, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Writes `trees` in one transaction, each in a savepoint, and commits it; what became of each
   * tree, in order. Rejects when the transaction as a whole failed: then none was written.
   */
  protected abstract commit(trees: InsertTree[]): Promise<Outcome[]>;

  private schedule(): void {
    if (this.flushing || this.waiting.length === 0) {
      return;
    }
    if (this.groupsInFlight >= this.maxGroupsInFlight) {
      return;
    }
    this.flushing = true;
    // The inserts of this turn of the event loop go in the group too.
    setImmediate(() => {
      this.flushing = false;
      this.flush();
    });
  }

  private flush(): void {
    const group = this.waiting.splice(0, TREES_PER_COMMIT);
    this.groupsInFlight += 1;
    void this.commit(group.map((waiting) => waiting.tree))
      .then(
        (outcomes) =>
          outcomes.forEach((outcome, i) =>
            'id' in outcome ? group[i].resolve(outcome.id) : group[i].reject(outcome.error),
          ),
        (error: unknown) => group.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => {
        this.groupsInFlight -= 1;
        this.schedule();
      });
    this.schedule();
  }
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

/** Writes each of `trees` in a savepoint, inside the transaction `manager` holds. */
async function insertEachWith(manager: EntityManager, trees: InsertTree[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const tree of trees) {
    await manager.query(SAVEPOINT);
    try {
      outcomes.push({ id: await insertWith(manager, tree) });
    } catch (error) {
      await undoTree(() => manager.query(ROLLBACK_TO_SAVEPOINT), error);
      outcomes.push({ error });
    }
    await manager.query(RELEASE_SAVEPOINT);
  }
  return outcomes;
}

/**
 * Rolls back to the savepoint of a refused tree. An error that ended the whole transaction
 * (SQLite's disk full or I/O error, InnoDB's deadlock) took the savepoint with it: then the
 * trees written before are gone too, and the tree's error becomes the group's.
 */
async function undoTree(rollback: () => Promise<unknown>, error: unknown): Promise<void> {
  await rollback().catch(() => {
    throw error;
  });
}

/**
 * better-sqlite3 is synchronous: a read, or a whole group, runs within one turn of the event
 * loop, so nothing else can slip in between its statements. When another caller's transaction
 * is open on the shared connection (it awaits something), the work goes through TypeORM
 * instead, which waits for that transaction's end (src/database/sqlite-serializer.ts) rather
 * than reading its uncommitted rows or writing into it; a group then waits as one transaction,
 * so the dispatch worker's next transaction never waits for more than one group.
 */
class SqliteSql extends DriverSql {
  // One at a time: a group written through TypeORM holds the transaction of the connection.
  protected readonly maxGroupsInFlight = 1;
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

  protected async commit(trees: InsertTree[]): Promise<Outcome[]> {
    const connection = this.connection();
    return connection.db.inTransaction
      ? this.dataSource.transaction((manager) => insertEachWith(manager, trees))
      : connection.commit(trees);
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

  constructor(
    readonly db: Database,
    private readonly logger: Logger,
  ) {}

  all<T>(sql: string, parameters: unknown[]): T[] {
    return this.run(sql, parameters, (statement) => statement.all(...parameters) as T[]);
  }

  /** Writes `trees`, each in a savepoint, and commits them, all within this turn. */
  commit(trees: InsertTree[]): Outcome[] {
    this.execute('BEGIN');
    try {
      const outcomes = trees.map((tree) => this.writeInSavepoint(tree));
      this.execute('COMMIT');
      return outcomes;
    } catch (error) {
      // A refused COMMIT (a deferred constraint) leaves the transaction open; an I/O error may
      // have ended it already.
      if (this.db.inTransaction) {
        this.execute('ROLLBACK');
      }
      throw error;
    }
  }

  private writeInSavepoint(tree: InsertTree): Outcome {
    this.execute(SAVEPOINT);
    let outcome: Outcome;
    try {
      outcome = { id: this.write(tree) };
    } catch (error) {
      try {
        this.execute(ROLLBACK_TO_SAVEPOINT);
      } catch {
        // The transaction ended with the error (see undoTree).
        throw error;
      }
      outcome = { error };
    }
    this.execute(RELEASE_SAVEPOINT);
    return outcome;
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

  private execute(sql: string): void {
    this.run(sql, [], (statement) => statement.run());
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
  // InnoDB syncs concurrent commits together by itself; what a group saves here is mostly
  // round trips to the pool. A second group, written while the first one's statements and
  // commit travel, did better than one in bench:api; more did no better.
  protected readonly maxGroupsInFlight = 2;

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

  protected async commit(trees: InsertTree[]): Promise<Outcome[]> {
    const connection = await this.connect();
    try {
      await this.query(connection, 'START TRANSACTION', []);
      try {
        const outcomes: Outcome[] = [];
        for (const tree of trees) {
          outcomes.push(await this.writeInSavepoint(connection, tree));
        }
        await this.query(connection, 'COMMIT', []);
        return outcomes;
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

  /**
   * Unlike SQLite's, MySQL's savepoint replaces the one of the same name: the previous tree's
   * needs no RELEASE, a round trip less per tree.
   */
  private async writeInSavepoint(connection: PoolConnection, tree: InsertTree): Promise<Outcome> {
    await this.query(connection, SAVEPOINT, []);
    try {
      return { id: await this.write(connection, tree) };
    } catch (error) {
      await undoTree(() => this.query(connection, ROLLBACK_TO_SAVEPOINT, []), error);
      return { error };
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
