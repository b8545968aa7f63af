import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource, DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { DatabaseConfig } from '../config/configuration';
import { ENTITIES } from './entities';
import { InitialSchema1732230000000 } from './migrations/1732230000000-InitialSchema';
import { DispatchWorkers1763800000000 } from './migrations/1763800000000-DispatchWorkers';
import { EncryptAdapterSecrets1764000000000 } from './migrations/1764000000000-EncryptAdapterSecrets';
import { bindSecretCipher, checkSecretsKey } from './secrets-key.check';
import { OutboxRenderInput1764100000000 } from './migrations/1764100000000-OutboxRenderInput';
import { ScheduledExpansionCursor1764200000000 } from './migrations/1764200000000-ScheduledExpansionCursor';
import { ManagementApi1764300000000 } from './migrations/1764300000000-ManagementApi';
import { Webhooks1764400000000 } from './migrations/1764400000000-Webhooks';
import { WebhookDeliveries1764500000000 } from './migrations/1764500000000-WebhookDeliveries';
import { PhoneReliability1764600000000 } from './migrations/1764600000000-PhoneReliability';
import { Quotas1764700000000 } from './migrations/1764700000000-Quotas';
import { PhoneCallbackTokens1764800000000 } from './migrations/1764800000000-PhoneCallbackTokens';
import { PhonePacing1764900000000 } from './migrations/1764900000000-PhonePacing';
import { Sessions1765000000000 } from './migrations/1765000000000-Sessions';
import { Conversations1765100000000 } from './migrations/1765100000000-Conversations';
import { DashboardStatistics1765200000000 } from './migrations/1765200000000-DashboardStatistics';
import { WebhookDeliveryAnswer1765340000000 } from './migrations/1765340000000-WebhookDeliveryAnswer';
import { WebhookAttempts1765360000000 } from './migrations/1765360000000-WebhookAttempts';
import { IdempotencyKeys1765400000000 } from './migrations/1765400000000-IdempotencyKeys';
import { MessageValidity1765410000000 } from './migrations/1765410000000-MessageValidity';
import { MessagePriority1765440000000 } from './migrations/1765440000000-MessagePriority';
import { SendWindows1765450000000 } from './migrations/1765450000000-SendWindows';
import { Failover1765460000000 } from './migrations/1765460000000-Failover';
import { HiddenScheduled1765470000000 } from './migrations/1765470000000-HiddenScheduled';
import { serializeTransactions } from './sqlite-serializer';

export const MIGRATIONS = [
  InitialSchema1732230000000,
  DispatchWorkers1763800000000,
  EncryptAdapterSecrets1764000000000,
  OutboxRenderInput1764100000000,
  ScheduledExpansionCursor1764200000000,
  ManagementApi1764300000000,
  Webhooks1764400000000,
  WebhookDeliveries1764500000000,
  PhoneReliability1764600000000,
  Quotas1764700000000,
  PhoneCallbackTokens1764800000000,
  PhonePacing1764900000000,
  Sessions1765000000000,
  Conversations1765100000000,
  DashboardStatistics1765200000000,
  WebhookDeliveryAnswer1765340000000,
  WebhookAttempts1765360000000,
  IdempotencyKeys1765400000000,
  MessageValidity1765410000000,
  MessagePriority1765440000000,
  SendWindows1765450000000,
  Failover1765460000000,
  HiddenScheduled1765470000000,
];

export function dataSourceOptions(
  database: DatabaseConfig,
  logger?: TypeOrmLogger,
): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: logger ? ('all' as const) : false,
    logger,
  };
  if (database.type === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      // WAL lets readers go on while the worker writes; the busy timeout rides out short locks.
      enableWAL: true,
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma('busy_timeout = 5000');
        // better-sqlite3 opens an existing WAL database with synchronous=NORMAL, whose last
        // commits a power cut may undo: an accepted message lost, or a claimed send claimed
        // again and sent twice. FULL syncs every commit, as MariaDB does by default.
        db.pragma('synchronous = FULL');
        db.pragma('foreign_keys = ON');
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: database.url,
    charset: 'utf8mb4',
    // Datetimes travel as the UTC strings the application writes (see DatetimeColumn).
    dateStrings: true,
    timezone: 'Z',
    extra: { connectionLimit: 10 },
  };
}

/**
 * Creates and initialises a data source, with the cipher of the secrets it stores: its
 * migrations encrypt with it, `migrate` checks it.
 */
export async function openDataSource(
  database: DatabaseConfig,
  secrets: SecretCipher,
  logger?: TypeOrmLogger,
): Promise<DataSource> {
  return initializeDataSource(new DataSource(dataSourceOptions(database, logger)), secrets);
}

/**
 * Initialises a data source made from `dataSourceOptions`: the folder of an SQLite file is
 * created first, and SQLite's transactions are then given the connection one at a time.
 */
export async function initializeDataSource(
  dataSource: DataSource,
  secrets: SecretCipher,
): Promise<DataSource> {
  const { options } = dataSource;
  if (options.type === 'better-sqlite3') {
    mkdirSync(dirname(options.database), { recursive: true });
  }
  bindSecretCipher(dataSource, secrets);
  await dataSource.initialize();
  if (options.type === 'better-sqlite3') {
    serializeTransactions(dataSource);
  }
  return dataSource;
}

const MIGRATION_LOCK = 'smsgw_migrations';
const MIGRATION_LOCK_TIMEOUT_SECONDS = 120;

/**
 * Runs pending migrations. On MySQL several processes may boot together: the first takes a
 * named lock and migrates, the others wait for it and then find nothing left to run.
 * Returns the names of the migrations applied by this call. Throws a `SecretsKeyError`, before
 * any migration, when the data source's secrets key is not the database's.
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type !== 'mysql') {
    return migrateWithKey(dataSource);
  }
  const lockHolder = dataSource.createQueryRunner();
  try {
    await lockHolder.connect();
    const rows = (await lockHolder.query('SELECT GET_LOCK(?, ?) AS acquired', [
      MIGRATION_LOCK,
      MIGRATION_LOCK_TIMEOUT_SECONDS,
    ])) as Array<{ acquired: number | string | null }>;
    if (Number(rows[0]?.acquired) !== 1) {
      throw new Error(
        `Could not take the migration lock within ${MIGRATION_LOCK_TIMEOUT_SECONDS} s: another process is migrating`,
      );
    }
    try {
      return await migrateWithKey(dataSource);
    } finally {
      await lockHolder.query('SELECT RELEASE_LOCK(?)', [MIGRATION_LOCK]);
    }
  } finally {
    await lockHolder.release();
  }
}

async function migrateWithKey(dataSource: DataSource): Promise<string[]> {
  await checkSecretsKey(dataSource, false);
  const applied = (await dataSource.runMigrations()).map((migration) => migration.name);
  await checkSecretsKey(dataSource, true);
  return applied;
}
