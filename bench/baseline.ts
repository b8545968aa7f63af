import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { createPool } from 'mysql2/promise';
import { ParamBudget, parseQueryString } from '../src/common/params/query-string';

/**
 * The baseline of the throughput figures: a bare node:http server doing what an accepted
 * get_send_sms / post_scheduled must at least do — find the user by the hash of the key and
 * insert the scheduled message with its numbers in a transaction — with the same driver.
 */
export async function startBaseline(
  databaseUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const store = databaseUrl.startsWith('sqlite:')
    ? sqliteStore(databaseUrl.slice('sqlite:'.length))
    : mysqlStore(databaseUrl);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The API's own parser, with the same budget: parsing costs the same on both sides.
      const budget = new ParamBudget(20_000);
      const query = parseQueryString((request.url ?? '').split('?')[1] ?? '', budget);
      const body = parseQueryString(Buffer.concat(chunks).toString(), budget);
      const params = { ...query, ...body } as Record<string, string | string[] | undefined>;
      const key = typeof params.api_key === 'string' ? params.api_key : '';
      const hash = createHash('sha256').update(key).digest('hex');
      const numbers = ([] as unknown[]).concat(params.numbers ?? params.to ?? []).map(String);
      store
        .accept(hash, typeof params.text === 'string' ? params.text : '', numbers)
        .then((id) => {
          response.setHeader('content-type', 'application/json');
          response.statusCode = id === null ? 401 : 200;
          response.end(
            JSON.stringify({
              error: id === null ? 1 : 0,
              message: null,
              response: id,
              next: null,
              prev: null,
            }),
          );
        })
        .catch((error: unknown) => {
          response.statusCode = 500;
          response.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

interface Store {
  accept(keyHash: string, text: string, numbers: string[]): Promise<number | null>;
  close(): Promise<void>;
}

const now = () => new Date().toISOString().slice(0, 19).replace('T', ' ');

function sqliteStore(path: string): Store {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // As smsgw's own connection (src/database/data-source.ts).
  db.pragma('synchronous = FULL');
  const findUser = db.prepare('SELECT id, status FROM user WHERE api_key_hash = ?');
  const insertScheduled = db.prepare(
    'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
      'VALUES (?, ?, ?, ?, 0, 0, ?)',
  );
  const insertNumber = db.prepare(
    "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, ?, '[]', ?)",
  );
  const create = db.transaction((userId: number, text: string, numbers: string[]) => {
    const stamp = now();
    const id = Number(insertScheduled.run(userId, stamp, stamp, text, stamp).lastInsertRowid);
    for (const number of numbers) {
      insertNumber.run(id, number, stamp);
    }
    return id;
  });
  return {
    accept: (keyHash, text, numbers) => {
      const user = findUser.get(keyHash) as { id: number } | undefined;
      return Promise.resolve(user ? create(user.id, text, numbers) : null);
    },
    close: () => Promise.resolve(void db.close()),
  };
}

function mysqlStore(url: string): Store {
  const pool = createPool({ uri: url, connectionLimit: 10, dateStrings: true });
  return {
    accept: async (keyHash, text, numbers) => {
      const [users] = (await pool.query('SELECT id, status FROM user WHERE api_key_hash = ?', [
        keyHash,
      ])) as unknown as [Array<{ id: number }>];
      if (users.length === 0) {
        return null;
      }
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        const stamp = now();
        const [result] = (await connection.query(
          'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
            'VALUES (?, ?, ?, ?, 0, 0, ?)',
          [users[0].id, stamp, stamp, text, stamp],
        )) as unknown as [{ insertId: number }];
        for (const number of numbers) {
          await connection.query(
            "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, ?, '[]', ?)",
            [result.insertId, number, stamp],
          );
        }
        await connection.commit();
        return result.insertId;
      } catch (error) {
        await connection.rollback();
        throw error;
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  };
}
