import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRETS_KEY_FILE, SecretsKeyError, secretCipher } from './secrets-key';
import { SecretCipher } from './secret-cipher';

describe('secretCipher', () => {
  let folder: string;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-key-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('uses SECRETS_KEY when it is set, and writes no file', () => {
    const key = Buffer.alloc(32, 3);

    const cipher = secretCipher({ secretsKey: key, dataDir: folder });

    expect(cipher.fingerprint).toBe(new SecretCipher(key).fingerprint);
    expect(cipher.source).toBe('SECRETS_KEY');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('makes a key once in DATA_DIR/secrets.key, readable by its owner only, then reuses it', () => {
    const dataDir = join(folder, 'not', 'yet');

    const first = secretCipher({ secretsKey: null, dataDir });
    const second = secretCipher({ secretsKey: null, dataDir });

    const path = join(dataDir, SECRETS_KEY_FILE);
    expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(
      first.fingerprint ===
        new SecretCipher(Buffer.from(readFileSync(path, 'utf8').trim(), 'hex')).fingerprint,
    ).toBe(true);
    expect(first.source).toBe(`the key in ${path} (SECRETS_KEY is unset)`);
    // No temporary file is left behind.
    expect(readdirSync(dataDir)).toEqual([SECRETS_KEY_FILE]);
  });

  it.each([
    ['empty', ''],
    ['too short', 'abcd\n'],
    ['not a key', 'hello world, this is not a key at all, nor base64 of 32 bytes!\n'],
  ])('refuses a secrets.key that is %s with one clear line, and never replaces it', (_, text) => {
    const path = join(folder, SECRETS_KEY_FILE);
    writeFileSync(path, text);

    expect(() => secretCipher({ secretsKey: null, dataDir: folder })).toThrow(
      new SecretsKeyError(
        `${path} does not hold a secrets key (64 hexadecimal characters): restore it from ` +
          'your backup, or set SECRETS_KEY.',
      ),
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('says so when DATA_DIR cannot hold the key', () => {
    const file = join(folder, 'a-file');
    writeFileSync(file, '');

    expect(() => secretCipher({ secretsKey: null, dataDir: join(file, 'data') })).toThrow(
      /^Cannot create the secrets key .*\(ENOTDIR\): make DATA_DIR writable by smsgw, or set SECRETS_KEY\.$/,
    );
  });
});
