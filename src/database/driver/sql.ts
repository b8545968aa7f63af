/** One statement with its bound values, as a body yields it to its runner. */
export interface Statement {
  sql: string;
  parameters: unknown[];
}

/** What a write did: the rows it changed and, for an INSERT, the id of the first row written. */
export interface Written {
  affected: number;
  /** Both engines number the rows of one INSERT consecutively (see RecordingRepository.record). */
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

/**
 * What a driver answered to a write: better-sqlite3's run result (the last rowid) or mysql2's
 * header (the first insert id).
 */
export type DriverWriteResult =
  | { changes: number; lastInsertRowid: number | bigint }
  | { affectedRows: number; insertId: number | string };

/** A driver's answer to a write, the same on every engine. */
export function written(result: DriverWriteResult): Written {
  if ('changes' in result) {
    const affected = Number(result.changes);
    return { affected, firstId: Number(result.lastInsertRowid) - affected + 1 };
  }
  return { affected: Number(result.affectedRows), firstId: Number(result.insertId) };
}

/** Runs `body`, each statement with `execute`, whose errors are thrown into the body. */
export function drive<T>(body: Sql<T>, execute: (statement: Statement) => unknown): T {
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

/** `drive` for a driver that answers asynchronously. */
export async function driveAsync<T>(
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
