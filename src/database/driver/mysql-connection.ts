import type { PoolConnection } from 'mysql2';
import { DataSource, QueryFailedError } from 'typeorm';
import type { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { driveAsync, Sql, Statement, written } from './sql';

/**
 * A connection of mysql2's pool as TypeORM configured it (charset, date strings, zone), lent
 * for one piece of work. Statements go as text (`query`): their shapes vary with IN lists and
 * multi-row INSERTs, and prepared ones would pile up on the server per connection. As through a
 * query runner, each statement is told to the data source's logger, and its errors are
 * TypeORM's `QueryFailedError`; a connection that cannot be had throws the driver's error.
 */
export class MysqlConnection {
  /** Runs `work` on a connection of the pool, given back afterwards. */
  static async with<T>(
    dataSource: DataSource,
    work: (connection: MysqlConnection) => Promise<T>,
  ): Promise<T> {
    const pooled = (await (
      dataSource.driver as MysqlDriver
    ).obtainMasterConnection()) as PoolConnection;
    try {
      return await work(new MysqlConnection(pooled, dataSource));
    } finally {
      pooled.release();
    }
  }

  private constructor(
    private readonly connection: PoolConnection,
    private readonly dataSource: DataSource,
  ) {}

  /** The rows of a statement that reads, the `Written` of one that writes. */
  execute({ sql, parameters }: Statement): Promise<unknown> {
    const logger = this.dataSource.logger;
    logger.logQuery(sql, parameters);
    return new Promise((resolve, reject) => {
      this.connection.query(sql, parameters, (error, result) => {
        if (error) {
          logger.logQueryError(error, sql, parameters);
          reject(new QueryFailedError(sql, parameters, error));
        } else {
          resolve(Array.isArray(result) ? result : written(result));
        }
      });
    });
  }

  /** Runs `body`'s statements, each committed on its own. */
  run<T>(body: Sql<T>): Promise<T> {
    return driveAsync(body, (statement) => this.execute(statement));
  }

  /** Runs `body` in a transaction; `readCommitted` sets that isolation level for it. */
  async transaction<T>(body: Sql<T>, readCommitted = false): Promise<T> {
    if (readCommitted) {
      await this.execute(statement('SET TRANSACTION ISOLATION LEVEL READ COMMITTED'));
    }
    await this.execute(statement('START TRANSACTION'));
    try {
      const result = await this.run(body);
      await this.execute(statement('COMMIT'));
      return result;
    } catch (error) {
      // The statement's error is the one worth telling; a failed rollback ends with the
      // connection, which the server then rolls back itself.
      await this.execute(statement('ROLLBACK')).catch(() => undefined);
      throw error;
    }
  }
}

const statement = (sql: string): Statement => ({ sql, parameters: [] });
