import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DriverRunner } from '../database/driver/runner';
import { select, Sql, write } from '../database/driver/sql';
import { marks, rowMarks } from '../database/driver/placeholders';
import { STORED_PRIORITY } from '../scheduled/entities/message-priority';
import { DEFAULT_SETTINGS } from '../users/settings';
import { MediaRow } from './dispatch-rows';

/** Candidates read per row wanted when claiming or leasing on MySQL (see ClaimsRepository). */
export const CANDIDATES_PER_ROW = 4;

/**
 * The stored priorities, high first: the order in which the queues (due messages, rows to render,
 * rows to claim) are read, one index range each (docs/dispatch.md#priority).
 */
export const PRIORITIES = [STORED_PRIORITY.high, STORED_PRIORITY.normal] as const;

/** Values per `IN (…)` list and rows per multi-row INSERT: far below SQLite's bound variables. */
export const ROWS_PER_STATEMENT = 500;

/**
 * What the dispatch's repositories share. Their SQL runs on the driver (DriverRunner): it runs
 * per batch of hundreds of rows, where TypeORM's query runners and query builder would cost more
 * than the database (bench:dispatch). Statements that belong in a transaction are `Sql` bodies,
 * composed by the services and run whole by `transaction`, whichever repository's. Locking reads
 * take row locks with SKIP LOCKED on MySQL/MariaDB so that workers never wait for, nor take,
 * each other's rows; SQLite has a single worker and a single writer. Decorated so that the
 * repositories that extend it inherit its constructor's injection.
 */
@Injectable()
export abstract class DispatchSql {
  readonly mysql: boolean;
  protected readonly sql: DriverRunner;

  constructor(readonly dataSource: DataSource) {
    this.mysql = dataSource.options.type === 'mysql';
    this.sql = DriverRunner.for(dataSource);
  }

  /** `FOR UPDATE SKIP LOCKED` where the engine has row locks. */
  protected get skipLocked(): string {
    return this.mysql ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /** Runs `body` in a transaction; READ COMMITTED on MySQL so counts see other workers' claims. */
  transaction<T>(body: Sql<T>): Promise<T> {
    return this.sql.transaction(body, true);
  }

  *settingsOf(userId: number): Sql<Record<string, string>> {
    const rows = yield* select<{ name: string; value: string | null }>(
      'SELECT name, value FROM setting WHERE id_user = ?',
      [userId],
    );
    const settings: Record<string, string> = { ...DEFAULT_SETTINGS };
    for (const row of rows) {
      settings[row.name] = row.value ?? '';
    }
    return settings;
  }

  /** Medias as events show them; their paths also make the links of a text. */
  *mediaRows(ids: readonly number[]): Sql<MediaRow[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows = yield* select<MediaRow>(
      `SELECT id, id_user, path FROM media WHERE id IN (${marks(ids.length)})`,
      [...ids],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      id_user: Number(row.id_user),
      path: row.path,
    }));
  }

  /**
   * Updates outbox rows (as `o`) in one statement, joined by id to a table of `values` (`v`, the
   * first column the id): a CASE per column would cost rows × rows comparisons. `set` is given
   * the prefix that MySQL wants on the columns it sets and SQLite refuses; `params` are its.
   */
  protected *updateOutbox(
    columns: readonly string[],
    values: ReadonlyArray<readonly unknown[]>,
    set: (target: string) => string,
    where: string,
    params: readonly unknown[],
  ): Sql<void> {
    if (this.mysql) {
      const first = `SELECT ${columns.map((column) => `? AS ${column}`).join(', ')}`;
      yield* write(
        'UPDATE outbox o JOIN (' +
          values
            .map((_, index) => (index === 0 ? first : `SELECT ${marks(columns.length)}`))
            .join(' UNION ALL ') +
          `) v ON v.id = o.id SET ${set('o.')} WHERE ${where}`,
        [...values.flat(), ...params],
      );
      return;
    }
    yield* write(
      `WITH v (${columns.join(', ')}) AS (VALUES ${rowMarks(values.length, columns.length)}) ` +
        `UPDATE outbox AS o SET ${set('')} FROM v WHERE o.id = v.id AND ${where}`,
      [...values.flat(), ...params],
    );
  }
}
