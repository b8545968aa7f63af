import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireBuild } from '../support/built-app';

const COMPILED = join(__dirname, '..', '..', 'dist', 'common', 'secrets', 'secrets-key.js');

const run = promisify(execFile);

/** Runs a process that gets the secrets cipher of `dataDir` and prints its key's fingerprint. */
async function fingerprintIn(dataDir: string): Promise<string> {
  const script =
    `const { secretCipher } = require(${JSON.stringify(COMPILED)});` +
    `process.stdout.write(secretCipher({ secretsKey: null, dataDir: process.argv[1] }).fingerprint);`;
  return (await run(process.execPath, ['-e', script, dataDir])).stdout;
}

describe('the secrets key made in DATA_DIR by processes starting together', () => {
  let folder: string;

  beforeAll(() => {
    requireBuild();
  });
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-key-race-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('is one key, which all of them use', async () => {
    const dataDir = join(folder, 'data');

    const fingerprints = await Promise.all(Array.from({ length: 8 }, () => fingerprintIn(dataDir)));

    expect(new Set(fingerprints).size).toBe(1);
    expect(readdirSync(dataDir)).toEqual(['secrets.key']);
    expect(readFileSync(join(dataDir, 'secrets.key'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  });
});
