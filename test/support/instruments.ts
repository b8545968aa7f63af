import { DataSource, QueryRunner, ReplicationMode } from 'typeorm';

/* Instruments for tests: a frozen clock and a record of the SQL an action sends. */

/** Freezes `Date` (and so luxon's now) at `iso`; timers and I/O keep running. */
export function freezeDate(iso: string): void {
  jest.useFakeTimers({
    now: new Date(iso),
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

/**
 * Runs `action` and records the SQL statements the app's DataSource sends meanwhile: every query
 * runner the driver hands out (a fresh one per query or transaction on MySQL, a cached one on
 * SQLite) has its `query` method, through which all SQL reaches the engine, spied on.
 */
export async function withQueries<T>(
  dataSource: DataSource,
  action: () => Promise<T>,
): Promise<{ result: T; queries: string[] }> {
  const driver = dataSource.driver;
  const createQueryRunner = driver.createQueryRunner.bind(driver);
  const runners = new Set<QueryRunner>();
  const querySpies: jest.SpyInstance[] = [];
  const factorySpy = jest
    .spyOn(driver, 'createQueryRunner')
    .mockImplementation((mode: ReplicationMode) => {
      const runner = createQueryRunner(mode);
      if (!runners.has(runner)) {
        runners.add(runner);
        querySpies.push(jest.spyOn(runner, 'query'));
      }
      return runner;
    });
  try {
    const result = await action();
    const queries = querySpies.flatMap((spy) => spy.mock.calls.map((call) => String(call[0])));
    return { result, queries };
  } finally {
    factorySpy.mockRestore();
    querySpies.forEach((spy) => spy.mockRestore());
  }
}
