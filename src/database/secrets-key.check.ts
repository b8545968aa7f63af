import { DataSource, QueryRunner } from 'typeorm';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { SecretsKeyError } from '../common/secrets/secrets-key';
import { parseTextRecord } from '../common/secrets/sealed-fields';
import { nowUtc } from '../common/time/datetime';
import { adapterDataScope } from '../common/secrets/adapter-data-scope';
import { Phone } from '../phones/entities/phone.entity';

/**
 * The fingerprint of the key the database's secrets are encrypted with (one row), so that a
 * process with another key refuses to start instead of writing what the others cannot read.
 */
export const SECRETS_KEY_TABLE = 'secrets_key';
const ROW_ID = 1;

const ciphers = new WeakMap<DataSource, SecretCipher>();

/** Gives a data source the cipher its migrations encrypt and decrypt stored secrets with. */
export function bindSecretCipher(dataSource: DataSource, cipher: SecretCipher): void {
  ciphers.set(dataSource, cipher);
}

export function secretCipherOf(dataSource: DataSource): SecretCipher {
  const cipher = ciphers.get(dataSource);
  if (!cipher) {
    throw new Error('This data source has no secrets key: open it with openDataSource.');
  }
  return cipher;
}

/** The stored fingerprint, or null when none is (yet). */
async function storedFingerprint(runner: QueryRunner): Promise<string | null> {
  const rows = (await runner.query(`SELECT fingerprint FROM ${SECRETS_KEY_TABLE} WHERE id = ?`, [
    ROW_ID,
  ])) as Array<{ fingerprint: string }>;
  return rows[0]?.fingerprint ?? null;
}

/** Stores the cipher's fingerprint, unless one is already stored: the first key wins. */
export async function recordSecretsKey(runner: QueryRunner, cipher: SecretCipher): Promise<void> {
  await runner.manager
    .createQueryBuilder()
    .insert()
    .into(SECRETS_KEY_TABLE)
    .values({ id: ROW_ID, fingerprint: cipher.fingerprint, created_at: nowUtc() })
    .orIgnore()
    .execute();
}

/**
 * Makes the data source's key the database's in place of a lost one; false when it already was.
 * Values encrypted with the old key stay as they are: they will not decrypt, and say so.
 */
export async function resetSecretsKey(dataSource: DataSource): Promise<boolean> {
  const cipher = secretCipherOf(dataSource);
  const runner = dataSource.createQueryRunner();
  try {
    if (!(await runner.hasTable(SECRETS_KEY_TABLE))) {
      return false;
    }
    if ((await storedFingerprint(runner)) === cipher.fingerprint) {
      return false;
    }
    await runner.query(`DELETE FROM ${SECRETS_KEY_TABLE} WHERE id = ?`, [ROW_ID]);
    await recordSecretsKey(runner, cipher);
    return true;
  } finally {
    await runner.release();
  }
}

/** A phone with encrypted values that the data source's key cannot decrypt. */
export interface PhoneToUpdate {
  id: number;
  id_user: number;
  name: string;
  adapter: string;
  fields: string[];
}

/** Every phone whose encrypted values the data source's key cannot decrypt, by id. */
export async function phonesWithUnreadableSecrets(
  dataSource: DataSource,
): Promise<PhoneToUpdate[]> {
  const cipher = secretCipherOf(dataSource);
  const phones = await dataSource.getRepository(Phone).find({
    select: { id: true, id_user: true, name: true, adapter: true, adapter_data: true },
    order: { id: 'ASC' },
  });
  return phones.flatMap((phone) => {
    const fields = Object.entries(parseTextRecord(phone.adapter_data))
      .filter(
        ([field, value]) =>
          SecretCipher.isSealed(value) &&
          !opens(cipher, value, `${adapterDataScope(phone)}/${field}`),
      )
      .map(([field]) => field);
    return fields.length === 0
      ? []
      : [
          {
            id: phone.id,
            id_user: phone.id_user,
            name: phone.name,
            adapter: phone.adapter,
            fields,
          },
        ];
  });
}

function opens(cipher: SecretCipher, value: string, context: string): boolean {
  try {
    cipher.open(value, context);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses the data source's key when the database's secrets were encrypted with another one.
 * With `record`, a database that has no fingerprint yet gets this key's; of processes starting
 * together with different keys, the first one's is stored and the others are refused.
 */
export async function checkSecretsKey(dataSource: DataSource, record: boolean): Promise<void> {
  const cipher = secretCipherOf(dataSource);
  const runner = dataSource.createQueryRunner();
  try {
    if (!(await runner.hasTable(SECRETS_KEY_TABLE))) {
      return;
    }
    let stored = await storedFingerprint(runner);
    if (stored === null && record) {
      await recordSecretsKey(runner, cipher);
      stored = await storedFingerprint(runner);
    }
    if (stored !== null && stored !== cipher.fingerprint) {
      throw new SecretsKeyError(
        `${capitalized(cipher.source)} is not the key this database's provider credentials ` +
          'were encrypted with: set SECRETS_KEY to that key (restore it from the backup made ' +
          'with the database), or, if it is lost, run `smsgw secrets reset-key --confirm` ' +
          "and enter the phones' credentials again.",
      );
    }
  } finally {
    await runner.release();
  }
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
