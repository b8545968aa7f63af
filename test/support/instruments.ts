import { DataSource } from 'typeorm';

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
 * Runs `action` and records the SQL statements the app's DataSource sends meanwhile, in order:
 * each one is told to the data source's logger, by TypeORM's query runners as by DriverSql.
 */
export async function withQueries<T>(
  dataSource: DataSource,
  action: () => Promise<T>,
): Promise<{ result: T; queries: string[] }> {
  const spy = jest.spyOn(dataSource.logger, 'logQuery');
  try {
    const result = await action();
    return { result, queries: spy.mock.calls.map((call) => String(call[0])) };
  } finally {
    spy.mockRestore();
  }
}

/**
 * Resolves once `condition` holds, checking every 20 ms; fails after `timeoutMs` with `what`.
 * For outcomes of background work (the dispatch worker), never for timing assertions.
 */
export async function waitFor(
  condition: () => Promise<boolean>,
  what = 'the condition',
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
