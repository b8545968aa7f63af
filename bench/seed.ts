import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { generateApiKey, hashApiKey } from '../src/common/auth/api-key';
import { API_DATETIME_FORMAT } from '../src/common/time/datetime';
import { marks, rowMarks } from '../src/database/driver/placeholders';
import { countExisting } from '../src/database/migrations/1765200000000-DashboardStatistics';

const USERS = 10;
const PHONES_PER_USER = 5;
const DESTINATIONS = 10_000;
const DAYS = 90;
const BATCH = 2_000;
const STATUSES = [
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'unknown',
  'unknown',
  'failed',
];
const TAGS = [null, 'campaign-1', 'campaign-2', 'campaign-3', 'alerts'];

export interface SeedResult {
  apiKey: string;
  /** Rows of the measured user: half of all, the rest spread over the other users. */
  userRows: number;
  middleId: number;
  now: string;
  monthStart: string;
}

type Sqlite = {
  prepare(sql: string): { run(...values: unknown[]): unknown };
  transaction(fn: () => void): () => void;
};

/**
 * Users with phones, `rows` sent messages over the last 90 days and a reply to one in ten,
 * inserted in bulk.
 */
export async function seed(dataSource: DataSource, rows: number): Promise<SeedResult> {
  const apiKey = generateApiKey();
  const now = DateTime.utc().startOf('second');
  const stamp = now.toFormat(API_DATETIME_FORMAT);
  const phonesByUser: number[][] = [];
  for (let user = 0; user < USERS; user += 1) {
    const key = user === 0 ? apiKey : generateApiKey();
    await dataSource.query(
      'INSERT INTO user (email, api_key_hash, admin, status, created_at) VALUES (?, ?, 0, ?, ?)',
      [`bench${user}@example.test`, hashApiKey(key), 'active', stamp],
    );
    const phones: number[] = [];
    for (let phone = 0; phone < PHONES_PER_USER; phone += 1) {
      await dataSource.query(
        "INSERT INTO phone (id_user, name, adapter, adapter_data, priority, status, created_at) VALUES (?, ?, 'test', '{}', 0, 'available', ?)",
        [user + 1, `phone ${phone}`, stamp],
      );
      phones.push(user * PHONES_PER_USER + phone + 1);
    }
    phonesByUser.push(phones);
  }

  const userRows = Math.ceil(rows / 2);
  const columns =
    'id_user, id_phone, at, text, destination, flash, mms, status, uid, adapter, tag, segments, encoding, created_at';
  const rowAt = (index: number): unknown[] => {
    // Even rows are the measured user's, so every user's messages span the whole period.
    const user = index % 2 === 0 ? 0 : 1 + (Math.floor(index / 2) % (USERS - 1));
    const phones = phonesByUser[user];
    const at = now
      .minus({ seconds: Math.floor(((rows - index) / rows) * DAYS * 86_400) })
      .toFormat(API_DATETIME_FORMAT);
    const destination = `+3361${String(index % DESTINATIONS).padStart(7, '0')}`;
    return [
      user + 1,
      phones[index % phones.length],
      at,
      'Hello from the benchmark',
      destination,
      0,
      0,
      STATUSES[index % STATUSES.length],
      `bench-${index}`,
      'test',
      TAGS[index % TAGS.length],
      1,
      'GSM-7',
      at,
    ];
  };

  await insertAll(dataSource, 'sended', columns, rows, rowAt);

  // Replies: one received message for every tenth sent one, from its destination a minute later,
  // so that conversations have both sides (get_conversations, get_conversation).
  const received = Math.floor(rows / 10);
  const receivedColumns = 'id_user, id_phone, at, text, origin, command, status, mms, created_at';
  const receivedAt = (reply: number): unknown[] => {
    const [user, phone, sentAt, , destination] = rowAt(reply * 10);
    const at = DateTime.fromFormat(sentAt as string, API_DATETIME_FORMAT, { zone: 'utc' })
      .plus({ minutes: 1 })
      .toFormat(API_DATETIME_FORMAT);
    return [user, phone, at, 'Thanks', destination, 0, reply % 3 === 0 ? 'unread' : 'read', 0, at];
  };
  await insertAll(dataSource, 'received', receivedColumns, received, receivedAt);

  // The counters the app keeps on every write, as the migration counts rows already there.
  await countExisting(dataSource, dataSource.options.type === 'mysql');
  const middle = await dataSource.query<Array<{ id: number }>>(
    `SELECT id FROM sended WHERE id_user = 1 ORDER BY id LIMIT 1 OFFSET ${Math.floor(userRows / 2)}`,
  );
  return {
    apiKey,
    userRows,
    middleId: Number(middle[0].id),
    now: stamp,
    monthStart: now.minus({ days: 30 }).toFormat(API_DATETIME_FORMAT),
  };
}

/** `rows` rows of `table`, made by `rowAt`, inserted in bulk. */
async function insertAll(
  dataSource: DataSource,
  table: string,
  columns: string,
  rows: number,
  rowAt: (index: number) => unknown[],
): Promise<void> {
  const width = columns.split(',').length;
  if (dataSource.options.type === 'better-sqlite3') {
    const sqlite = (dataSource.driver as unknown as { databaseConnection: Sqlite })
      .databaseConnection;
    const insert = sqlite.prepare(`INSERT INTO ${table} (${columns}) VALUES (${marks(width)})`);
    sqlite.transaction(() => {
      for (let index = 0; index < rows; index += 1) {
        insert.run(...rowAt(index));
      }
    })();
    return;
  }
  for (let start = 0; start < rows; start += BATCH) {
    const count = Math.min(BATCH, rows - start);
    const values: unknown[] = [];
    for (let index = start; index < start + count; index += 1) {
      values.push(...rowAt(index));
    }
    await dataSource.query(
      `INSERT INTO ${table} (${columns}) VALUES ${rowMarks(count, width)}`,
      values,
    );
  }
}
