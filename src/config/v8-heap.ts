import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * How smsgw bounds V8's heap from inside the process once it serves, so that `node dist/main.js`
 * and every way of starting it get the same footprint without flags on the command line (README,
 * "Memory"); lean-boot.ts does it for the start. Only flags that V8 reads whenever it uses them
 * can be set so; those that size the heap are read once, when the process starts.
 */

/**
 * The most a semi-space of the young generation grows to, in MiB (V8's own bound is 16). With
 * the old generation bounded, 4 cost a campaign 8 to 10 % more CPU than 16 for 25 MiB less
 * resident, and 2 twice that CPU for 3 MiB less (bench/RESULTS.md, "Campaigns and footprint").
 */
export const SEMI_SPACE_MIB = 4;

/** How often the young generation's size is looked at while it may still grow. */
const YOUNG_CHECK_MS = 20;

/**
 * Once the process serves (after `endLeanBoot`), with HEAP_GROWING_PERCENT (0: V8's own
 * behaviour): the old generation grows at most `percent` past what its last full collection
 * found alive, rather than by a factor V8 picks (up to 4), and the young generation's
 * semi-spaces grow up to SEMI_SPACE_MIB, their size checked every YOUNG_CHECK_MS while below it
 * (growth factor 2, V8's default) and held once it is reached. A campaign keeps each batch's rows
 * alive just long enough to be moved to the old generation, which V8's heuristics let reach
 * several times what stays alive. Then a full collection: the start's garbage goes, and the old
 * generation's first limit is set from what is alive rather than from V8's initial one. A flag
 * the operator gave on Node's command line is left as given.
 */
export function boundHeap(percent: number): void {
  if (percent === 0) {
    return;
  }
  if (!given(/^--heap[-_]growing[-_]percent=/)) {
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  }
  if (!given(/^--(?:max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)=/)) {
    holdYoungGeneration();
  }
  collectGarbage();
}

/** Whether Node's command line gave a V8 flag. */
function given(flag: RegExp): boolean {
  return process.execArgv.some((option) => flag.test(option));
}

/**
 * V8 reads the young generation's maximum size only when the process starts, but the factor it
 * grows it by whenever it grows it: 2 while below the bound, 1 once there.
 */
function holdYoungGeneration(): void {
  const bound = 2 * SEMI_SPACE_MIB * 1024 * 1024;
  let growing: boolean | null = null;
  const check = () => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    const grow = young !== undefined && young.space_size < bound;
    if (grow !== growing) {
      growing = grow;
      setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
    }
  };
  check();
  setInterval(check, YOUNG_CHECK_MS).unref();
}

/**
 * A full collection. V8 gives a script its `gc` function only in a context created while
 * `--expose-gc` is set: the flag is unset at once, so that no later context (a text thread's)
 * gets one.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  gc();
}
