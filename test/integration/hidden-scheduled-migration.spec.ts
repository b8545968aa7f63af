import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { undoThrough } from '../support/migrations';

/*
 * The HiddenScheduled migration on both engines, over messages already scheduled: each is whole
 * (`hidden` 0) and keeps its recipients, although adding the column rebuilds the table on
 * SQLite.
 */

const MIGRATION = 'HiddenScheduled1765470000000';
const STAMP = '2024-01-01 00:00:00';

describeEachDatabase('the HiddenScheduled migration', (database) => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    await undoThrough(ds, MIGRATION);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it('makes every scheduled message whole, its recipients kept', async () => {
    const { user } = await makeUser(ds);
    await ds.query(
      'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
        'VALUES (?, ?, ?, ?, 0, 0, ?)',
      [user.id, STAMP, STAMP, 'Hello', STAMP],
    );
    const [{ id }] = await ds.query<Array<{ id: number | string }>>(
      'SELECT id FROM scheduled WHERE id_user = ?',
      [user.id],
    );
    await ds.query(
      "INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES (?, '+33612345678', '[]', ?)",
      [id, STAMP],
    );

    await migrate(ds);

    const [row] = await ds.query<Array<{ hidden: number | string }>>(
      'SELECT hidden FROM scheduled WHERE id = ?',
      [id],
    );
    expect(Number(row.hidden)).toBe(0);
    const [numbers] = await ds.query<Array<{ n: number | string }>>(
      'SELECT COUNT(*) AS n FROM scheduled_number WHERE id_scheduled = ?',
      [id],
    );
    expect(Number(numbers.n)).toBe(1);
  });
});
