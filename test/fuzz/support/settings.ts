/*
 * The knobs of a fuzz run, read once from the environment (the README's "Fuzzing" section
 * documents them). Defaults make `npm run fuzz` reproducible: the same seed generates the same
 * requests on every machine.
 */

export interface FuzzSettings {
  /** Generated cases per database, shared among the families by their weights. */
  runs: number;
  seed: number;
  /** Names of the only families to run; null runs them all. */
  only: ReadonlySet<string> | null;
  /** fast-check's path of a counterexample, to replay it (with FUZZ_ONLY naming its family). */
  path: string | null;
  /** How long one request may take before it counts as a hang. */
  requestTimeoutMs: number;
  /** How long a family may spend shrinking a failure before it reports the smallest found. */
  shrinkMs: number;
  /**
   * Runs every case instead of stopping at a family's first failure, and reports each kind of
   * failure once, unshrunk: to list all that is wrong rather than the first thing.
   */
  survey: boolean;
}

export const DEFAULT_RUNS = 3000;
export const DEFAULT_SEED = 20_260_101;

function integer(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') {
    return fallback;
  }
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got "${raw}".`);
  }
  return Number(raw);
}

export function readSettings(): FuzzSettings {
  const only = (process.env.FUZZ_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const path = process.env.FUZZ_PATH?.trim() || null;
  if (path && only.length !== 1) {
    throw new Error('FUZZ_PATH replays one case: set FUZZ_ONLY to the name of its family.');
  }
  return {
    runs: integer('FUZZ_RUNS', DEFAULT_RUNS, 1),
    // fast-check seeds are 32-bit integers.
    seed: integer('FUZZ_SEED', DEFAULT_SEED, -(2 ** 31)) | 0,
    only: only.length ? new Set(only) : null,
    path,
    requestTimeoutMs: integer('FUZZ_REQUEST_TIMEOUT_MS', 30_000, 100),
    shrinkMs: integer('FUZZ_SHRINK_SECONDS', 60, 0) * 1000,
    survey: ['1', 'true', 'yes'].includes((process.env.FUZZ_SURVEY ?? '').trim().toLowerCase()),
  };
}
