import { DataSource, EntityManager } from 'typeorm';
import { MysqlConnection } from './mysql-connection';
import { DriverWriteResult, driveAsync, Sql, written } from './sql';
import { SqliteConnection } from './sqlite-connection';

/**
 * Runs bodies on the driver's own connection (better-sqlite3) or pool (mysql2), without
 * TypeORM's query runners, whose awaits per statement cost more than the statements when the
 * dispatch worker writes hundreds of rows per batch.
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
      const { raw, affected } = (await runner.query(sql, parameters, true)) as {
        raw: unknown;
        affected?: number;
      };
      if (Array.isArray(raw)) {
        return raw as unknown[];
      }
      // TypeORM gives better-sqlite3's last rowid alone, the rows changed beside it.
      return typeof raw === 'number' || typeof raw === 'bigint'
        ? written({ changes: affected ?? 0, lastInsertRowid: raw })
        : written(raw as DriverWriteResult);
    });
  } finally {
    if (runner !== manager.queryRunner) {
      await runner.release();
    }
  }
}

/**
 * A body runs whole within one call, BEGIN IMMEDIATE to COMMIT, and needs no lock. Only when
 * another caller's transaction is open on the connection (SqliteConnection.busy) does it go
 * through TypeORM.
 */
class SqliteRunner extends DriverRunner {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async transaction<T>(body: Sql<T>): Promise<T> {
    const connection = SqliteConnection.of(this.dataSource);
    return connection.busy
      ? this.dataSource.transaction((manager) => runOn(manager, body))
      : connection.transaction(body);
  }

  async run<T>(body: Sql<T>): Promise<T> {
    const connection = SqliteConnection.of(this.dataSource);
    return connection.busy ? runOn(this.dataSource.manager, body) : connection.run(body);
  }
}

/** One pooled connection per body, one round trip per statement. */
class MysqlRunner extends DriverRunner {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  transaction<T>(body: Sql<T>, readCommitted = false): Promise<T> {
    return MysqlConnection.with(this.dataSource, (connection) =>
      connection.transaction(body, readCommitted),
    );
  }

  run<T>(body: Sql<T>): Promise<T> {
    return MysqlConnection.with(this.dataSource, (connection) => connection.run(body));
  }
}
