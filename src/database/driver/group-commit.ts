import { DataSource, EntityManager } from 'typeorm';
import { DriverRunner, runOn } from './runner';
import { select, Sql, write } from './sql';

/** An INSERT with its bound values, and the rows to insert once its row's id is known. */
export interface InsertTree {
  sql: string;
  parameters: unknown[];
  /** Rows that point at this one, given its generated id. */
  children?: (id: number) => InsertTree[];
}

/**
 * Trees per commit. A flood of writes is cut into several commits, so that none holds the
 * connection (on SQLite, the event loop; under the dispatch worker's transaction, the worker)
 * for long.
 */
export const TREES_PER_COMMIT = 500;

/** What became of one tree of a group: the id of its first row, or why it was refused. */
type Outcome = { id: number } | { error: unknown };

/** A tree waiting for its group, and its caller. */
interface Waiting {
  tree: InsertTree;
  resolve(id: number): void;
  reject(error: unknown): void;
}

/**
 * SQL run on the driver (DriverRunner) for the statements of every API request: the key lookup
 * and the get_send_sms insert. TypeORM's query runners wrap each statement in several awaits
 * (events, statement cache, connection) and, under load, those promises cost more than the
 * statements: each one also pays for the request context that AsyncLocalStorage carries
 * (bench:api, bench/profile.ts).
 *
 * Inserts are committed in groups. Every commit is synced to disk (on SQLite, with the event
 * loop blocked meanwhile): one sync for all the messages of the moment rather than one each.
 * The trees that arrive during one turn of the event loop, or while the previous group is being
 * written, go together in one transaction, each in a savepoint of its own so that a refused
 * tree is undone alone; every caller is answered once that transaction is committed, never
 * before: an answered message survives the process being killed.
 *
 * On SQLite, while another caller's transaction is open on the shared connection, a group goes
 * through TypeORM and waits for that transaction as one (see DriverRunner), so the dispatch
 * worker's next transaction never waits for more than one group.
 */
export class DriverSql {
  private static readonly instances = new WeakMap<DataSource, DriverSql>();

  /** The driver of `dataSource`, one per data source: all of its inserts share the groups. */
  static for(dataSource: DataSource): DriverSql {
    let sql = DriverSql.instances.get(dataSource);
    if (!sql) {
      sql = new DriverSql(dataSource);
      DriverSql.instances.set(dataSource, sql);
    }
    return sql;
  }

  private readonly runner: DriverRunner;
  /** Groups written at the same time, each in its own transaction. */
  private readonly maxGroupsInFlight: number;
  /**
   * Unlike SQLite's, MySQL's savepoint replaces the one of the same name: the previous tree's
   * needs no RELEASE, a round trip less per tree.
   */
  private readonly releasesSavepoints: boolean;
  private readonly waiting: Waiting[] = [];
  private flushing = false;
  private groupsInFlight = 0;

  private constructor(dataSource: DataSource) {
    this.runner = DriverRunner.for(dataSource);
    const mysql = dataSource.options.type === 'mysql';
    // SQLite: one at a time, as a group written through TypeORM holds the transaction of the
    // connection. MySQL: InnoDB syncs concurrent commits together by itself; what a group saves
    // there is mostly round trips to the pool. A second group, written while the first one's
    // statements and commit travel, did better than one in bench:api; more did no better.
    this.maxGroupsInFlight = mysql ? 2 : 1;
    this.releasesSavepoints = !mysql;
  }

  /** The rows a SELECT gives. */
  select<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return this.runner.run(select<T>(sql, parameters));
  }

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
    const trees = group.map((waiting) => waiting.tree);
    void this.runner
      .transaction(insertEach(trees, this.releasesSavepoints))
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
export function insertWith(manager: EntityManager, tree: InsertTree): Promise<number> {
  return runOn(manager, insertTree(tree));
}

/** Writes a row, then the rows given its id; the id of its first row. */
export function* insertTree(tree: InsertTree): Sql<number> {
  const { firstId } = yield* write(tree.sql, tree.parameters);
  for (const child of tree.children?.(firstId) ?? []) {
    yield* insertTree(child);
  }
  return firstId;
}

/** Writes each of `trees` in a savepoint: what became of each, in order. */
function* insertEach(trees: InsertTree[], releasesSavepoints: boolean): Sql<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const tree of trees) {
    yield* write('SAVEPOINT tree');
    try {
      outcomes.push({ id: yield* insertTree(tree) });
    } catch (error) {
      yield* undoTree(error);
      outcomes.push({ error });
    }
    if (releasesSavepoints) {
      yield* write('RELEASE SAVEPOINT tree');
    }
  }
  return outcomes;
}

/**
 * Rolls back to the savepoint of a refused tree. An error that ended the whole transaction
 * (SQLite's disk full or I/O error, InnoDB's deadlock) took the savepoint with it: then the
 * trees written before are gone too, and the tree's error becomes the group's.
 */
function* undoTree(error: unknown): Sql<void> {
  try {
    yield* write('ROLLBACK TO SAVEPOINT tree');
  } catch {
    throw error;
  }
}
