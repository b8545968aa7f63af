import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How smsgw bounds V8's heap from inside the process, so that `node dist/main.js` and every way
 * of starting it get the same footprint without flags on the command line (README, "Memory").
 *
 * V8 lets the old generation grow, before a full collection, to a limit set from what the last
 * one found alive times a factor it picks from its own measurements, up to 4; before the first
 * one, to a fixed initial limit. A campaign promotes its batches' short-lived rows faster than
 * an idle heap would suggest, so the process peaked at about 300 MiB for some 50 MiB alive.
 * `--heap-growing-percent` fixes that factor, and a full collection once started sets the first
 * limit from what the start left alive, rather than from the initial one.
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) {
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  }
}

/**
 * A full collection, once the process has started: the start's garbage (module sources read,
 * metadata built) goes, and the old generation's next limit is set from what is alive. V8 gives
 * a script its `gc` function only in a context created after `--expose-gc` is set; the flag
 * changes nothing else.
 */
export function collectStartGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
}
