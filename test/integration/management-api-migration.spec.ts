import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { undoThrough } from '../support/migrations';

/*
 * The ManagementApi migration on both engines: `name_key` backfilled from the names already
 * there, names unique per user case-insensitively, and `down` giving back the unique
 * (id_user, name) index of the initial schema.
 */

const MIGRATION = 'ManagementApi1764300000000';
const STAMP = '2024-01-01 00:00:00';

describeEachDatabase('the ManagementApi migration', (database) => {
  let ds: DataSource;
  let alice: number;
  let bob: number;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    await undoThrough(ds, MIGRATION);
    alice = (await makeUser(ds)).user.id;
    bob = (await makeUser(ds)).user.id;
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  const insertContact = (userId: number, name: string, nameKey?: string) =>
    ds.query(
      `INSERT INTO contact (id_user, name, ${nameKey === undefined ? '' : 'name_key, '}number, ` +
        `data, created_at) VALUES (?, ?, ${nameKey === undefined ? '' : '?, '}?, '{}', ?)`,
      [userId, name, ...(nameKey === undefined ? [] : [nameKey]), '+33612345678', STAMP],
    );
  const insertGroup = (userId: number, name: string, nameKey?: string) =>
    ds.query(
      `INSERT INTO contact_group (id_user, name${nameKey === undefined ? '' : ', name_key'}, ` +
        `created_at) VALUES (?, ?${nameKey === undefined ? '' : ', ?'}, ?)`,
      [userId, name, ...(nameKey === undefined ? [] : [nameKey]), STAMP],
    );
  const keys = (table: string) =>
    ds.query<Array<{ id_user: number; name: string; name_key: string | null }>>(
      `SELECT id_user, name, name_key FROM ${table} ORDER BY id`,
    );
  const uniqueIndexes = async (table: string) => {
    const runner = ds.createQueryRunner();
    try {
      const found = await runner.getTable(table);
      return [
        ...(found?.indices ?? []).filter((index) => index.isUnique),
        ...(found?.uniques ?? []),
      ].map((index) => index.columnNames);
    } finally {
      await runner.release();
    }
  };

  it('backfills name_key, refuses two names differing only by case, and down restores the (id_user, name) index', async () => {
    await insertContact(alice, 'Élodie Martin');
    await insertContact(alice, 'Bob');
    await insertContact(bob, 'BOB');
    await insertGroup(alice, 'Friends');

    await migrate(ds);

    expect(await keys('contact')).toEqual([
      { id_user: alice, name: 'Élodie Martin', name_key: 'élodie martin' },
      { id_user: alice, name: 'Bob', name_key: 'bob' },
      // Another user's names are apart.
      { id_user: bob, name: 'BOB', name_key: 'bob' },
    ]);
    expect(await keys('contact_group')).toEqual([
      { id_user: alice, name: 'Friends', name_key: 'friends' },
    ]);
    expect(await uniqueIndexes('contact')).toContainEqual(['id_user', 'name_key']);
    expect(await uniqueIndexes('contact')).not.toContainEqual(['id_user', 'name']);

    await expect(insertContact(alice, 'bOB', 'bob')).rejects.toThrow();
    await expect(insertGroup(alice, 'FRIENDS', 'friends')).rejects.toThrow();
    await insertContact(alice, 'Robert', 'robert');
    expect((await keys('contact')).length).toBe(4);

    await undoThrough(ds, MIGRATION);

    for (const table of ['contact', 'contact_group', 'conditional_group']) {
      expect(await uniqueIndexes(table)).toContainEqual(['id_user', 'name']);
    }
    const columns = await ds.query<Array<Record<string, unknown>>>('SELECT * FROM contact');
    expect(Object.keys(columns[0])).not.toContain('name_key');
    await expect(insertContact(alice, 'Bob')).rejects.toThrow();

    await migrate(ds);
    expect((await keys('contact')).map((row) => row.name_key)).toEqual([
      'élodie martin',
      'bob',
      'bob',
      'robert',
    ]);
  });

  it('keeps the first of two names differing only by case, as the later one gets no key', async () => {
    await undoThrough(ds, MIGRATION);
    // The initial schema's index is case-sensitive on SQLite, and case-insensitive on MariaDB.
    await insertGroup(bob, 'Team');
    const caseOnly = await insertGroup(bob, 'TEAM').then(
      () => true,
      () => false,
    );

    await migrate(ds);

    const teams = (await keys('contact_group')).filter((row) => row.id_user === bob);
    expect(teams).toEqual([
      { id_user: bob, name: 'Team', name_key: 'team' },
      ...(caseOnly ? [{ id_user: bob, name: 'TEAM', name_key: null }] : []),
    ]);
    expect(caseOnly).toBe(database().kind === 'sqlite');
  });
});
