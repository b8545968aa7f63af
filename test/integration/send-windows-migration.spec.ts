import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { undoThrough } from '../support/migrations';

/*
 * The SendWindows migration on both engines, over messages already scheduled: each gets its `at`
 * as `send_after` (the column becomes NOT NULL, which on SQLite rebuilds the table) and keeps
 * its recipients.
 */

const MIGRATION = 'SendWindows1765450000000';
const STAMP = '2024-01-01 00:00:00';

describeEachDatabase('the SendWindows migration', (database) => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    await undoThrough(ds, MIGRATION);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it('gives each scheduled message its at as send_after, its recipients kept', async () => {
    const { user } = await makeUser(ds);
    const ats = ['2030-01-01 08:00:00', '2020-06-01 12:30:00'];
    for (const at of ats) {
      await ds.query(
        'INSERT INTO scheduled (id_user, at, text, flash, mms, created_at) VALUES (?, ?, ?, 0, 0, ?)',
        [user.id, at, 'Hello', STAMP],
      );
    }
    const ids = (
      await ds.query<Array<{ id: number }>>(
        'SELECT id FROM scheduled WHERE id_user = ? ORDER BY id',
        [user.id],
      )
    ).map((row) => Number(row.id));
    for (const id of ids) {
      await ds.query(
        "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, '+33612345678', '[]', ?)",
        [id, STAMP],
      );
    }

    await migrate(ds);

    const rows = await ds.query<Array<{ at: string; send_after: string }>>(
      'SELECT at, send_after FROM scheduled WHERE id_user = ? ORDER BY id',
      [user.id],
    );
    expect(
      rows.map((row) => [String(row.at).slice(0, 19), String(row.send_after).slice(0, 19)]),
    ).toEqual(ats.map((at) => [at, at]));
    const numbers = await ds.query<Array<{ n: number | string }>>(
      `SELECT COUNT(*) AS n FROM scheduled_number WHERE id_scheduled IN (${ids.join(', ')})`,
    );
    expect(Number(numbers[0].n)).toBe(ids.length);
  });
});
