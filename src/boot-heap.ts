import { setFlagsFromString } from 'node:v8';

/*
 * Imported first by the entry points, so that this runs before the application's modules load.
 *
 * V8 doubles its young generation whenever a scavenge finds that more has survived than it
 * holds. During the boot nearly everything allocated survives (modules, their metadata, the
 * entities'), so it grows to its maximum, 2 × 16 MiB, and stays resident until V8's memory
 * reducer shrinks it, some 15 s after the process went idle: a third of the resident memory
 * at start (issue 26). The boot runs with the generation at its initial size instead, and
 * `letYoungGenerationGrow` gives V8 its default back once the process serves, for its load to
 * size the generation. The factor is read at each growth, unlike the heap's sizes, which are
 * fixed when the process starts.
 */
setFlagsFromString('--semi-space-growth-factor=1');

/** V8's default growth of the young generation, from now on. */
export function letYoungGenerationGrow(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
