import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { DataSource, MigrationExecutor } from 'typeorm';

/**
 * Whether the database schema is the one this code expects: no migration of the code is missing
 * from the database. A process that boots migrates, so one becomes pending only when the schema
 * is changed under a running process (a migration reverted, or a database restored from an
 * older backup): what it then writes may not fit.
 */
@Injectable()
export class MigrationsHealthIndicator {
  constructor(
    private readonly indicator: HealthIndicatorService,
    private readonly dataSource: DataSource,
  ) {}

  async isUpToDate<const Key extends string>(
    key: Key,
    timeoutMs: number,
  ): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicator.check(key);
    let pending: string[];
    try {
      pending = await withTimeout(timeoutMs, this.pendingMigrations());
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
    return pending.length === 0 ? check.up() : check.down({ pending });
  }

  private async pendingMigrations(): Promise<string[]> {
    const migrations = await new MigrationExecutor(this.dataSource).getPendingMigrations();
    return migrations.map((migration) => migration.name);
  }
}

/** `work`, or a rejection once `ms` have passed: a database that hangs fails the check. */
async function withTimeout<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout of ${ms}ms exceeded`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
