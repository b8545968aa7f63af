import { createContext, Script } from 'node:vm';

/** The work did not finish in its time: it was stopped where it stood. */
export class TimeLimitExceeded extends Error {}

const sandbox = createContext(Object.create(null) as object);
const callWork = new Script('work()');

/**
 * Runs synchronous work and stops it after `timeoutMs`, wherever it is: V8 interrupts it even
 * inside a regular expression that backtracks without end, which no check the work itself makes
 * can do. Starting the watchdog costs about 50 µs, so callers reserve this for work that a
 * user-supplied pattern can make unbounded.
 *
 * Stopping unwinds the work without running its `finally` blocks: state the work changes must
 * be restored by the caller.
 */
export function runWithin<T>(timeoutMs: number, work: () => T): T {
  let result: { value: T } | undefined;
  (sandbox as { work?: () => void }).work = () => {
    result = { value: work() };
  };
  try {
    callWork.runInContext(sandbox, { timeout: timeoutMs });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new TimeLimitExceeded(`took longer than ${timeoutMs} ms`);
    }
    throw error;
  } finally {
    delete (sandbox as { work?: () => void }).work;
  }
  if (result === undefined) {
    throw new TimeLimitExceeded('did not finish');
  }
  return result.value;
}
