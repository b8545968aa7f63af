import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { AppConfig } from '../../config/configuration';
import { SECRETS_KEY_BYTES, parseSecretsKey } from '../../config/env.validation';
import { SecretCipher } from './secret-cipher';

/** The key kept under DATA_DIR when SECRETS_KEY is unset. */
export const SECRETS_KEY_FILE = 'secrets.key';

/** A secrets key that cannot be had or does not fit the database: the process cannot start. */
export class SecretsKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretsKeyError';
  }
}

/**
 * The cipher of provider credentials, with the key of SECRETS_KEY, else the one kept in
 * DATA_DIR/secrets.key, made there the first time.
 */
export function secretCipher(config: Pick<AppConfig, 'secretsKey' | 'dataDir'>): SecretCipher {
  if (config.secretsKey) {
    return new SecretCipher(config.secretsKey, 'SECRETS_KEY');
  }
  const path = join(config.dataDir, SECRETS_KEY_FILE);
  const key = readKeyFile(path) ?? createKeyFile(config.dataDir, path);
  return new SecretCipher(key, `the key in ${path} (SECRETS_KEY is unset)`);
}

function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Absent, or DATA_DIR is not a folder: making the key tells what is wrong.
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return null;
    }
    throw new SecretsKeyError(
      `Cannot read the secrets key in ${path} (${code ?? 'error'}): ` +
        'make it readable by smsgw, or set SECRETS_KEY.',
    );
  }
  const key = parseSecretsKey(text);
  if (!key) {
    throw new SecretsKeyError(
      `${path} does not hold a secrets key (${SECRETS_KEY_BYTES * 2} hexadecimal characters): ` +
        'restore it from your backup, or set SECRETS_KEY.',
    );
  }
  return key;
}

/**
 * Writes a new random key to a file of its own, readable by its owner only, then links it to
 * `path`: a link never replaces a file, so of two processes starting together one makes the key
 * and both read that one, never a half-written file.
 */
function createKeyFile(dataDir: string, path: string): Buffer {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dataDir, { recursive: true });
    const file = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(file, `${randomBytes(SECRETS_KEY_BYTES).toString('hex')}\n`);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    linkSync(temporary, path);
    syncFolder(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SecretsKeyError(
        `Cannot create the secrets key ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): ` +
          'make DATA_DIR writable by smsgw, or set SECRETS_KEY.',
      );
    }
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // Not created: nothing to remove.
    }
  }
  return readKeyFile(path) as Buffer;
}

/**
 * Makes the new link durable: a power cut must not take back a key that secrets were already
 * encrypted with. Systems that cannot sync a folder (Windows) keep their own guarantees.
 */
function syncFolder(folder: string): void {
  let handle: number;
  try {
    handle = openSync(folder, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(handle);
  } catch {
    // As above: the link is there, only its durability is the system's.
  } finally {
    closeSync(handle);
  }
}
