import { DataSource } from 'typeorm';
import { openFields, parseTextRecord } from '../../src/common/secrets/sealed-fields';
import { SecretsKeyError, secretCipher } from '../../src/common/secrets/secrets-key';
import { AppConfig } from '../../src/config/configuration';
import { validateEnvironment } from '../../src/config/env.validation';
import { MIGRATIONS, migrate, openDataSource } from '../../src/database/data-source';
import { resetSecretsKey, secretCipherOf } from '../../src/database/secrets-key.check';
import { adapterDataScope } from '../../src/common/secrets/adapter-data-scope';
import { makeUser } from '../support/factories';
import { undoAfter, undoThrough } from '../support/migrations';
import {
  createTestDatabase,
  DATABASE_KINDS,
  describeEachDatabase,
  TestDatabase,
} from '../support/databases';

/** Every table of the schema, in the order the migration creates them. */
const TABLES = [
  'user',
  'setting',
  'phone',
  'phone_limit',
  'phone_group',
  'phone_group_phone',
  'contact',
  'contact_group',
  'group_contact',
  'conditional_group',
  'media',
  'scheduled',
  'scheduled_number',
  'scheduled_contact',
  'scheduled_group',
  'scheduled_conditional_group',
  'sended',
  'received',
  'media_scheduled',
  'media_sended',
  'media_received',
  'smsstop',
  'outbox',
  'worker',
  'secrets_key',
  'phone_reliability_history',
  'session',
  'login_attempt',
];

/** The tables behind the nine entry types: listed as `WHERE id_user = ? ORDER BY id`. */
const LISTED_TABLES = [
  'phone',
  'phone_group',
  'contact',
  'contact_group',
  'conditional_group',
  'media',
  'scheduled',
  'sended',
  'received',
];

/** Indexes the design demands: [table, columns in order, unique]. */
const REQUIRED_INDEXES: Array<[string, string[], boolean]> = [
  ...LISTED_TABLES.map((table): [string, string[], boolean] => [table, ['id_user', 'id'], false]),
  // Authentication looks a key up by its hash; two users never share a key.
  ['user', ['api_key_hash'], true],
  ['user', ['email'], true],
  ['setting', ['id_user', 'name'], true],
  // Usage and phone limits: messages per phone since a date.
  ['sended', ['id_user', 'id_phone', 'at'], false],
  // Invalid numbers: per destination, by status.
  ['sended', ['id_user', 'destination', 'status'], false],
  // Delivery receipts find their message by the provider's id.
  ['sended', ['uid'], false],
  // The dispatch worker's scan for due messages, high-priority ones first.
  ['scheduled', ['at'], false],
  ['scheduled', ['priority', 'send_after'], false],
  // One outbox row per destination of a message: how the dispatch drops duplicates.
  ['outbox', ['originating_scheduled', 'destination'], true],
  // A phone's limit check counts its sends in flight; a high-priority row takes the slot of the
  // phone's soonest booked normal row.
  ['outbox', ['via_phone', 'state', 'priority', 'pace_slot'], false],
  // Claims, and renders of templated texts, take the oldest rows of a state and priority.
  ['outbox', ['state', 'priority', 'next_attempt_at'], false],
  // The reliability check reads each phone's last alert of a type.
  ['phone_reliability_history', ['id_phone', 'type', 'created_at'], false],
  // A session is found by its token's hash at every session-authenticated request.
  ['session', ['token_hash'], true],
  // Expired sessions are purged by their last use and their age; a user's sessions end together.
  ['session', ['last_used_at'], false],
  ['session', ['created_at'], false],
  ['session', ['id_user'], false],
  // Failed sign-ins are counted per e-mail and per client address over a recent window.
  ['login_attempt', ['email', 'created_at'], false],
  ['login_attempt', ['address', 'created_at'], false],
];

const MIGRATION_NAMES = MIGRATIONS.map((migration) => new migration().name ?? migration.name);

/** The database opened as the app opens it, with the key kept in its DATA_DIR by default. */
function open(database: TestDatabase, env: Record<string, string> = {}): Promise<DataSource> {
  const config = new AppConfig(
    validateEnvironment({ DATABASE_URL: database.url, DATA_DIR: database.dataDir, ...env }),
  );
  return openDataSource(config.database, secretCipher(config));
}

interface IndexShape {
  columns: string[];
  unique: boolean;
}

/** A table's indexes and unique constraints as TypeORM reads them back from the database. */
async function indexesOf(dataSource: DataSource, tableName: string): Promise<IndexShape[]> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    const table = await queryRunner.getTable(tableName);
    if (!table) {
      throw new Error(`table ${tableName} does not exist`);
    }
    return [
      ...table.indices.map((index) => ({
        columns: index.columnNames,
        unique: Boolean(index.isUnique),
      })),
      ...table.uniques.map((unique) => ({ columns: unique.columnNames, unique: true })),
    ];
  } finally {
    await queryRunner.release();
  }
}

async function existingTables(dataSource: DataSource): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    const found: string[] = [];
    for (const table of [...TABLES, 'migrations']) {
      if (await queryRunner.hasTable(table)) {
        found.push(table);
      }
    }
    return found;
  } finally {
    await queryRunner.release();
  }
}

async function appliedCount(dataSource: DataSource): Promise<number> {
  const rows: Array<{ n: number | string }> = await dataSource.query(
    'SELECT COUNT(*) AS n FROM migrations',
  );
  return Number(rows[0].n);
}

describeEachDatabase('migrations', (database) => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await open(database());
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('runs every migration up from an empty database', async () => {
    expect(await existingTables(dataSource)).toEqual([]);

    expect(await migrate(dataSource)).toEqual(MIGRATION_NAMES);

    expect(await appliedCount(dataSource)).toBe(MIGRATIONS.length);
  });

  it('creates every table of the schema', async () => {
    expect(await existingTables(dataSource)).toEqual([...TABLES, 'migrations']);
  });

  it.each(REQUIRED_INDEXES)('indexes %s on %j (unique: %s)', async (table, columns, unique) => {
    const indexes = await indexesOf(dataSource, table);

    expect(indexes).toContainEqual({ columns, unique });
  });

  it('gives every table an id primary key and created_at / updated_at', async () => {
    const queryRunner = dataSource.createQueryRunner();
    try {
      for (const name of TABLES) {
        const table = await queryRunner.getTable(name);
        expect({ name, primary: table?.primaryColumns.map((column) => column.name) }).toEqual({
          name,
          primary: ['id'],
        });
        expect(table?.findColumnByName('created_at')).toBeDefined();
        expect(table?.findColumnByName('updated_at')?.isNullable).toBe(true);
      }
    } finally {
      await queryRunner.release();
    }
  });

  it('applies nothing when run a second time', async () => {
    expect(await migrate(dataSource)).toEqual([]);

    expect(await appliedCount(dataSource)).toBe(MIGRATIONS.length);
  });

  it('drops every table when the migrations are undone, and runs up again afterwards', async () => {
    for (let i = 0; i < MIGRATIONS.length; i++) {
      await dataSource.undoLastMigration({ transaction: 'each' });
    }

    expect(await existingTables(dataSource)).toEqual(['migrations']);
    expect(await appliedCount(dataSource)).toBe(0);

    expect(await migrate(dataSource)).toEqual(MIGRATION_NAMES);
    expect(await existingTables(dataSource)).toEqual([...TABLES, 'migrations']);
    expect(await indexesOf(dataSource, 'user')).toContainEqual({
      columns: ['api_key_hash'],
      unique: true,
    });
  });
});

const describeOnMariaDb = DATABASE_KINDS.includes('mariadb') ? describe : describe.skip;

describeOnMariaDb('migrations under concurrent boots [mariadb]', () => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('mariadb');
  });
  afterAll(async () => {
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
    await database?.drop();
  });

  it('lets two processes migrate one fresh database at once, applying each migration once', async () => {
    dataSources.push(await open(database), await open(database));

    const results = await Promise.all(dataSources.map((dataSource) => migrate(dataSource)));

    // One took the lock and migrated; the other waited for it and found nothing left to run.
    expect([...results].sort((a, b) => b.length - a.length)).toEqual([MIGRATION_NAMES, []]);
    expect(await appliedCount(dataSources[0])).toBe(MIGRATIONS.length);
    expect(await existingTables(dataSources[1])).toEqual([...TABLES, 'migrations']);
  });
});

describeEachDatabase('the migration encrypting stored credentials', (database) => {
  const ENCRYPTING = 'EncryptAdapterSecrets1764000000000';
  /** Phones as an older smsgw stored them, credentials in clear. */
  const PLAIN: Array<{ adapter: string; adapter_data: string | null; secrets: string[] }> = [
    {
      adapter: 'kannel',
      adapter_data: JSON.stringify({
        kannel_sendsms_url: 'http://smsbox.test/cgi-bin/sendsms',
        username: 'smsgw',
        password: 'kannel-pw-1',
        from: 'smsgw',
      }),
      secrets: ['password'],
    },
    {
      adapter: 'twilio',
      adapter_data: JSON.stringify({ account_sid: 'AC1', auth_token: 'tw-2', number: '+33611' }),
      secrets: ['auth_token'],
    },
    {
      adapter: 'ovh_shortcode',
      adapter_data: JSON.stringify({
        service_name: 's',
        app_key: 'ak',
        app_secret: 'ovh-as-3',
        consumer_key: 'ovh-ck-4',
      }),
      secrets: ['app_secret', 'consumer_key'],
    },
    {
      adapter: 'gammu',
      adapter_data: JSON.stringify({ config_file: '/etc/gammurc', pin: '5678' }),
      secrets: ['pin'],
    },
    { adapter: 'smpp', adapter_data: JSON.stringify({ host: 'h', port: 2775 }), secrets: [] },
    { adapter: 'test', adapter_data: '{"delivery":"delivered"}', secrets: [] },
    { adapter: 'kannel', adapter_data: '[]', secrets: [] },
    { adapter: 'twilio', adapter_data: null, secrets: [] },
  ];
  let dataSource: DataSource;
  let userId: number;

  beforeAll(async () => {
    dataSource = await open(database());
    await migrate(dataSource);
    await undoThrough(dataSource, ENCRYPTING);
    userId = (await makeUser(dataSource)).user.id;
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  const phones = async () =>
    dataSource.query<Array<{ id: number; id_user: number; adapter_data: string | null }>>(
      'SELECT id, id_user, adapter_data FROM phone ORDER BY id',
    );

  it('encrypts the secret fields of phones stored before it, and decrypts them in down', async () => {
    for (const [index, phone] of PLAIN.entries()) {
      await dataSource.query(
        'INSERT INTO phone (id_user, name, adapter, adapter_data, priority, status, created_at) ' +
          "VALUES (?, ?, ?, ?, 0, 'available', '2024-01-01 00:00:00')",
        [userId, `phone ${index}`, phone.adapter, phone.adapter_data],
      );
    }
    const before = await phones();

    const names = MIGRATIONS.map((migration) => migration.name);
    expect(await migrate(dataSource)).toEqual(names.slice(names.indexOf(ENCRYPTING)));

    const cipher = secretCipherOf(dataSource);
    const after = await phones();
    for (const [index, phone] of PLAIN.entries()) {
      const stored = after[index];
      const plain = parseTextRecord(phone.adapter_data);
      const encrypted = parseTextRecord(stored.adapter_data);
      for (const secret of phone.secrets) {
        expect(encrypted[secret]).toMatch(/^enc:v1:/);
        expect(stored.adapter_data).not.toContain(plain[secret]);
      }
      expect(openFields(cipher, phone.secrets, encrypted, adapterDataScope(stored))).toEqual({
        values: plain,
        unreadable: [],
      });
      if (phone.secrets.length === 0) {
        expect(stored.adapter_data).toBe(before[index].adapter_data);
      }
    }
    const fingerprints = await dataSource.query<Array<{ fingerprint: string }>>(
      'SELECT fingerprint FROM secrets_key',
    );
    expect(fingerprints).toEqual([{ fingerprint: cipher.fingerprint }]);

    await undoThrough(dataSource, ENCRYPTING);

    const undone = await phones();
    expect(undone.map((row) => parseTextRecord(row.adapter_data))).toEqual(
      before.map((row) => parseTextRecord(row.adapter_data)),
    );
    expect(undone.map((row) => row.adapter_data)).not.toContainEqual(
      expect.stringContaining('enc:v1:'),
    );
    const runner = dataSource.createQueryRunner();
    expect(await runner.hasTable('secrets_key')).toBe(false);
    await runner.release();
  });

  it('changes nothing when down meets a value its key cannot decrypt', async () => {
    await migrate(dataSource);
    const encrypted = await phones();
    const other = await open(database(), { SECRETS_KEY: 'cd'.repeat(32) });
    try {
      await undoAfter(other, ENCRYPTING);
      await expect(other.undoLastMigration({ transaction: 'each' })).rejects.toThrow(
        /^The password of phone \d+ cannot be decrypted with SECRETS_KEY: nothing was changed\.$/,
      );
    } finally {
      await other.destroy();
    }

    expect(await phones()).toEqual(encrypted);
  });
});

describeEachDatabase('the secrets key of a database', (database) => {
  const OTHER_KEY = { SECRETS_KEY: 'ef'.repeat(32) };
  const opened: DataSource[] = [];
  const openWith = async (env: Record<string, string> = {}) => {
    const dataSource = await open(database(), env);
    opened.push(dataSource);
    return dataSource;
  };

  afterAll(async () => {
    await Promise.all(opened.map((dataSource) => dataSource.destroy()));
  });

  it('is the first key that migrates it; another key is then refused, before any migration', async () => {
    const first = await openWith();
    await migrate(first);
    const other = await openWith(OTHER_KEY);

    await expect(migrate(other)).rejects.toThrow(
      new SecretsKeyError(
        "SECRETS_KEY is not the key this database's provider credentials were encrypted with: " +
          'set SECRETS_KEY to that key (restore it from the backup made with the database), ' +
          "or, if it is lost, run `smsgw secrets reset-key --confirm` and enter the phones' " +
          'credentials again.',
      ),
    );
    expect(await migrate(first)).toEqual([]);
  });

  it('names the key file when SECRETS_KEY is unset', async () => {
    const dataSource = await openWith(OTHER_KEY);
    await resetSecretsKey(dataSource);

    await expect(migrate(await openWith())).rejects.toThrow(
      /^The key in .*secrets\.key \(SECRETS_KEY is unset\) is not the key this database's/,
    );
  });
});

const describeRaceOnMariaDb = DATABASE_KINDS.includes('mariadb') ? describe : describe.skip;

describeRaceOnMariaDb('replicas with different keys starting together [mariadb]', () => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('mariadb');
  });
  afterAll(async () => {
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
    await database?.drop();
  });

  it('lets one key in and refuses the other', async () => {
    dataSources.push(
      await open(database, { SECRETS_KEY: '01'.repeat(32) }),
      await open(database, { SECRETS_KEY: '02'.repeat(32) }),
    );

    const results = await Promise.allSettled(dataSources.map((dataSource) => migrate(dataSource)));

    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((result) => result.status === 'rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(SecretsKeyError);
  });
});
