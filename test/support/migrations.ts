import { DataSource } from 'typeorm';

/** The last migration applied, by name; undefined when none is. */
async function lastApplied(dataSource: DataSource): Promise<string | undefined> {
  const [last] = await dataSource.query<Array<{ name: string }>>(
    'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
  );
  return last?.name;
}

/** Undoes the migrations applied after `name`, which stays the last one applied. */
export async function undoAfter(dataSource: DataSource, name: string): Promise<void> {
  for (let last = await lastApplied(dataSource); last !== name;) {
    if (last === undefined) {
      throw new Error(`The migration ${name} is not applied.`);
    }
    await dataSource.undoLastMigration({ transaction: 'each' });
    last = await lastApplied(dataSource);
  }
}

/** Undoes the migrations from the last one back to `name`, included: the state before it. */
export async function undoThrough(dataSource: DataSource, name: string): Promise<void> {
  await undoAfter(dataSource, name);
  await dataSource.undoLastMigration({ transaction: 'each' });
}
