import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';
import { SEMI_SPACE_MIB } from './v8-heap';

/*
 * boundHeap sets V8's flags for the whole process: each case runs in a Node process of its own,
 * started as lean-boot.ts leaves a process (young generation held at its initial size), which
 * reports what V8 does after boundHeap while it allocates survivors in waves, as a campaign's
 * batches do.
 */
const dir = mkdtempSync(join(tmpdir(), 'smsgw-v8-heap-'));
const MODULE = join(dir, 'v8-heap.js');
writeFileSync(
  MODULE,
  transpileModule(readFileSync(join(__dirname, 'v8-heap.ts'), 'utf8'), {
    compilerOptions: { module: ModuleKind.CommonJS },
  }).outputText,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const probeScript = (percent: number) => `
const v8 = require('node:v8');
const vm = require('node:vm');
v8.setFlagsFromString('--semi-space-growth-factor=2');
const { boundHeap } = require(${JSON.stringify(MODULE)});
boundHeap(${percent});
const youngMiB = () =>
  v8.getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space').space_size / 2 ** 20;
let most = youngMiB();
let wave = 0;
const step = () => {
  let kept = [];
  for (let i = 0; i < 25_000; i += 1) {
    kept.push({ i, text: 'survivor ' + i });
  }
  kept = null;
  most = Math.max(most, youngMiB());
  if (++wave < 120) {
    setTimeout(step, 10);
  } else {
    process.stdout.write(JSON.stringify({ most, gcInNewContext: vm.runInNewContext('typeof gc') }));
  }
};
step();
`;

function probe(percent: number, ...nodeFlags: string[]): { most: number; gcInNewContext: string } {
  const output = execFileSync(process.execPath, [...nodeFlags, '--eval', probeScript(percent)], {
    encoding: 'utf8',
  });
  return JSON.parse(output) as { most: number; gcInNewContext: string };
}

describe('boundHeap', () => {
  it('lets the young generation grow to its bound and no further, and leaves no gc function to later contexts', () => {
    const { most, gcInNewContext } = probe(50);

    // Two semi-spaces; one check period may let it grow a step past the bound.
    expect(most).toBeGreaterThan(2);
    expect(most).toBeLessThanOrEqual(4 * SEMI_SPACE_MIB);
    expect(gcInNewContext).toBe('undefined');
  });

  it('leaves the young generation to V8 with 0', () => {
    expect(probe(0).most).toBeGreaterThan(4 * SEMI_SPACE_MIB);
  });

  it('leaves the young generation as Node was told on its command line', () => {
    expect(probe(50, '--max-semi-space-size=16').most).toBeGreaterThan(4 * SEMI_SPACE_MIB);
  });
});
