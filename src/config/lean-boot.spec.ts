import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModuleKind, transpileModule } from 'typescript';

/*
 * lean-boot.ts sets V8's flags for the whole process when it is first loaded: each case runs
 * in a Node process of its own, which reports what V8 did before and after endLeanBoot(). The
 * module is compiled here, not by a ts-node hook in that process: as in dist/main.js, it must be
 * the first thing loaded, before TypeScript's compiler grows the young generation.
 */
const dir = mkdtempSync(join(tmpdir(), 'smsgw-lean-boot-'));
const MODULE = join(dir, 'lean-boot.js');
writeFileSync(
  MODULE,
  transpileModule(readFileSync(join(__dirname, 'lean-boot.ts'), 'utf8'), {
    compilerOptions: { module: ModuleKind.CommonJS },
  }).outputText,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether TurboFan optimises a function asked to, and the young generation's size, in MiB. */
const PROBE = `
const v8 = require('node:v8');
const { endLeanBoot } = require(${JSON.stringify(MODULE)});
const optimises = () => {
  const f = new Function('x', 'return x + 1');
  %PrepareFunctionForOptimization(f);
  f(1);
  f(2);
  %OptimizeFunctionOnNextCall(f);
  f(3);
  return (%GetOptimizationStatus(f) & 16) !== 0;
};
const kept = [];
const youngMiB = () => {
  for (let i = 0; i < 200_000; i += 1) {
    kept.push({ i, text: 'survivor ' + i });
  }
  const space = v8.getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space');
  return space.space_size / 2 ** 20;
};
const during = { optimises: optimises(), youngMiB: youngMiB() };
endLeanBoot();
const after = { optimises: optimises(), youngMiB: youngMiB() };
process.stdout.write(JSON.stringify({ during, after }));
`;

interface Probe {
  during: { optimises: boolean; youngMiB: number };
  after: { optimises: boolean; youngMiB: number };
}

function probe(...nodeFlags: string[]): Probe {
  const output = execFileSync(
    process.execPath,
    ['--allow-natives-syntax', ...nodeFlags, '--eval', PROBE],
    { encoding: 'utf8' },
  );
  return JSON.parse(output) as Probe;
}

describe('lean boot', () => {
  it('keeps TurboFan off and the young generation at its initial size until endLeanBoot, then gives V8 its defaults back', () => {
    const { during, after } = probe();

    expect(during.optimises).toBe(false);
    expect(during.youngMiB).toBeLessThanOrEqual(2);
    expect(after.optimises).toBe(true);
    expect(after.youngMiB).toBeGreaterThan(2);
  });

  it("leaves the flags given on Node's command line as given", () => {
    expect(probe('--no-turbofan').after.optimises).toBe(false);
    expect(probe('--turbofan').during.optimises).toBe(true);
    expect(probe('--semi-space-growth-factor=2').during.youngMiB).toBeGreaterThan(2);
  });
});
