import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { SecretCipher } from '../../common/secrets/secret-cipher';
import { openFields, parseTextRecord, sealFields } from '../../common/secrets/sealed-fields';
import { adapterDataScope } from '../../common/secrets/adapter-data-scope';
import { SECRETS_KEY_TABLE, recordSecretsKey, secretCipherOf } from '../secrets-key.check';
import { timestampColumns } from './table-parts';

/**
 * The secret fields of each adapter when this migration was written. A migration keeps the
 * schema of its day: a field flagged secret later needs a migration of its own to encrypt the
 * values stored before.
 */
export const ENCRYPTED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  twilio: ['auth_token'],
  kannel: ['password'],
  ovh_virtual_number: ['app_secret', 'consumer_key'],
  ovh_shortcode: ['app_secret', 'consumer_key'],
  gammu: ['pin'],
  smpp: ['password'],
};

/** Phones read and rewritten at a time. */
const PAGE = 500;

interface PhoneRow {
  id: number;
  id_user: number;
  adapter: string;
  adapter_data: string | null;
}

/*
 * Provider credentials stored in clear in `phone.adapter_data` are encrypted, field by field
 * (the other fields stay readable), with the key the data source was opened with, whose
 * fingerprint is stored in the new `secrets_key` table. `down` decrypts them again.
 */
export class EncryptAdapterSecrets1764000000000 implements MigrationInterface {
  name = 'EncryptAdapterSecrets1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const cipher = secretCipherOf(queryRunner.connection);
    await queryRunner.createTable(
      new Table({
        name: SECRETS_KEY_TABLE,
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          ...timestampColumns(),
        ],
        engine: 'InnoDB',
      }),
    );
    await recordSecretsKey(queryRunner, cipher);
    await rewritePhones(queryRunner, (fields, data, phone) =>
      sealFields(cipher, fields, data, adapterDataScope(phone)),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const cipher = secretCipherOf(queryRunner.connection);
    await rewritePhones(queryRunner, (fields, data, phone) =>
      decrypted(cipher, fields, data, phone),
    );
    await queryRunner.dropTable(SECRETS_KEY_TABLE);
  }
}

/** Every phone of an adapter with secret fields, its data rewritten by `rewrite`. */
async function rewritePhones(
  queryRunner: QueryRunner,
  rewrite: (
    fields: readonly string[],
    data: Record<string, string>,
    phone: PhoneRow,
  ) => Record<string, string>,
): Promise<void> {
  const adapters = Object.keys(ENCRYPTED_FIELDS);
  let after = 0;
  for (;;) {
    const phones = (await queryRunner.query(
      'SELECT id, id_user, adapter, adapter_data FROM phone ' +
        `WHERE id > ? AND adapter IN (${adapters.map(() => '?').join(', ')}) ` +
        `ORDER BY id LIMIT ${PAGE}`,
      [after, ...adapters],
    )) as PhoneRow[];
    for (const phone of phones) {
      const data = parseTextRecord(phone.adapter_data);
      const fields = ENCRYPTED_FIELDS[phone.adapter].filter((field) => field in data);
      if (fields.length > 0) {
        await queryRunner.query('UPDATE phone SET adapter_data = ? WHERE id = ?', [
          JSON.stringify(rewrite(fields, data, phone)),
          phone.id,
        ]);
      }
    }
    if (phones.length < PAGE) {
      return;
    }
    after = Number(phones[phones.length - 1].id);
  }
}

/** The data decrypted; a value that does not decrypt stops the migration, naming the phone. */
function decrypted(
  cipher: SecretCipher,
  fields: readonly string[],
  data: Record<string, string>,
  phone: PhoneRow,
): Record<string, string> {
  const { values, unreadable } = openFields(cipher, fields, data, adapterDataScope(phone));
  if (unreadable.length > 0) {
    throw new Error(
      `The ${unreadable.join(', ')} of phone ${phone.id} cannot be decrypted with ` +
        `${cipher.source}: nothing was changed.`,
    );
  }
  return { ...values };
}
