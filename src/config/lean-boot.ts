import { setFlagsFromString } from 'node:v8';

/*
 * Imported first by the entry points, so that this runs before the application's modules load.
 * The boot runs most of its code once (modules, decorators, migrations) and keeps most of what
 * it allocates; two of V8's defaults, made for a program's steady state, left a quarter of the
 * memory resident after it to what only the boot needed:
 *
 * - The young generation doubles whenever a scavenge finds that more survived than it holds. At
 *   boot nearly everything survives, so it grew to its maximum, 2 × 16 MiB, resident until V8's
 *   memory reducer shrank it some 15 s after the process went idle. The boot runs with the
 *   generation at its initial size.
 * - TurboFan optimised functions that the boot called often and never calls again; its compiler's
 *   pages and the code it made stayed resident (some 6 MiB).
 *
 * `endLeanBoot` gives V8 its defaults back once the process serves, for its load to size the
 * generation (within the bound v8-heap.ts then sets) and to optimise what it runs. Both flags are read when used, unlike the heap's
 * sizes, which are fixed when the process starts. A flag the operator gave on Node's command line
 * is left as given (NODE_OPTIONS refuses both).
 */
interface BootFlag {
  /** The flag as Node's command line gives it. */
  given: RegExp;
  boot: string;
  after: string;
}

const BOOT_FLAGS: readonly BootFlag[] = [
  {
    given: /^--semi[-_]space[-_]growth[-_]factor(?:=|$)/,
    boot: '--semi-space-growth-factor=1',
    after: '--semi-space-growth-factor=2',
  },
  { given: /^--(?:no-)?(?:turbofan|opt)$/, boot: '--no-turbofan', after: '--turbofan' },
];

const LEAN = BOOT_FLAGS.filter(
  ({ given }) => !process.execArgv.some((option) => given.test(option)),
);

for (const { boot } of LEAN) {
  setFlagsFromString(boot);
}

/** V8's defaults from now on, but for what the operator gave. */
export function endLeanBoot(): void {
  for (const { after } of LEAN) {
    setFlagsFromString(after);
  }
}
