import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * How smsgw bounds V8's heap from inside the process, so that `node dist/main.js` and every way
 * of starting it get the same footprint without flags on the command line (README, "Memory").
 * Only flags that V8 reads whenever it uses them can be set so; those that size the heap are
 * read once, when the process starts.
 */

/**
 * The most a semi-space of the young generation grows to, in MiB (V8's own bound is 16). With
 * the old generation bounded, 4 cost a campaign 8 to 10 % more CPU than 16 for 25 MiB less
 * resident, and 2 twice that CPU for 3 MiB more (bench/RESULTS.md, "Campaigns and footprint").
 */
export const SEMI_SPACE_MIB = 4;

/** How often the young generation's size is looked at while it may still grow. */
const YOUNG_CHECK_MS = 20;

/**
 * Stops the young generation from growing: V8 reads its maximum size only when the process
 * starts, but the factor it grows it by whenever it does. The start's short-lived allocations
 * would grow it to V8's maximum (two semi-spaces of 16 MiB, resident for good); run from the
 * entry points' first import, before the application's modules load.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Once started, with HEAP_GROWING_PERCENT (0: V8's own behaviour back): the old generation grows
 * at most `percent` past what its last full collection found alive, rather than by a factor V8
 * picks (up to 4), and the young generation's semi-spaces grow up to SEMI_SPACE_MIB, their
 * size checked every YOUNG_CHECK_MS while below it (growth factor 2, V8's default) and held
 * once it is reached. A campaign keeps each batch's rows alive just long enough to be moved to
 * the old generation, which V8's heuristics let reach several times what stays alive.
 */
export function boundHeap(percent: number): void {
  if (percent === 0) {
    setFlagsFromString('--semi-space-growth-factor=2');
    return;
  }
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  const bound = 2 * SEMI_SPACE_MIB * 1024 * 1024;
  let growing = false;
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
 * A full collection, once the process has started: the start's garbage (module sources read,
 * metadata built) goes, and the old generation's first limit is set from what is alive rather
 * than from V8's initial one. V8 gives a script its `gc` function only in a context created
 * after `--expose-gc` is set; the flag changes nothing else.
 */
export function collectStartGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}
