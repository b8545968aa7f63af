import { DataSource } from 'typeorm';
import { AppConfig, DatabaseConfig } from '../../src/config/configuration';
import { validateEnvironment } from '../../src/config/env.validation';
import { MIGRATIONS, migrate, openDataSource } from '../../src/database/data-source';
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
  // The dispatch worker's scan for due messages.
  ['scheduled', ['at'], false],
  // One outbox row per destination of a message: how the dispatch drops duplicates.
  ['outbox', ['originating_scheduled', 'destination'], true],
  // A phone's limit check counts its sends in flight.
  ['outbox', ['via_phone', 'state'], false],
];

const MIGRATION_NAMES = MIGRATIONS.map((migration) => new migration().name ?? migration.name);

function databaseConfig(database: TestDatabase): DatabaseConfig {
  return new AppConfig(
    validateEnvironment({ DATABASE_URL: database.url, DATA_DIR: database.dataDir }),
  ).database;
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
    dataSource = await openDataSource(databaseConfig(database()));
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
    dataSources.push(
      await openDataSource(databaseConfig(database)),
      await openDataSource(databaseConfig(database)),
    );

    const results = await Promise.all(dataSources.map((dataSource) => migrate(dataSource)));

    // One took the lock and migrated; the other waited for it and found nothing left to run.
    expect([...results].sort((a, b) => b.length - a.length)).toEqual([MIGRATION_NAMES, []]);
    expect(await appliedCount(dataSources[0])).toBe(MIGRATIONS.length);
    expect(await existingTables(dataSources[1])).toEqual([...TABLES, 'migrations']);
  });
});
