import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/databases';

/*
 * A process killed mid-request leaves its uploads (and a contact import's checked lines) in
 * DATA_DIR/tmp/uploads, which no later request removes: the next start removes those untouched
 * for an hour, and leaves newer ones, which another process on the same DATA_DIR may be
 * writing. (No database is involved, so this runs on SQLite only.)
 */
describe('uploads left by a process that stopped mid-request', () => {
  let database: TestDatabase;
  let t: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await t?.close();
    await database.drop();
  });

  it('are removed at start once an hour old; newer ones are left', async () => {
    const uploads = join(database.dataDir, 'tmp', 'uploads');
    mkdirSync(uploads, { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    const fiftyMinutesAgo = new Date(Date.now() - 50 * 60 * 1000);
    for (const [name, at] of [
      ['stale-upload', twoHoursAgo],
      ['stale-upload.checked', twoHoursAgo],
      ['recent-upload', fiftyMinutesAgo],
      ['receiving-now', new Date()],
    ] as const) {
      writeFileSync(join(uploads, name), 'number\n+33612345678\n');
      utimesSync(join(uploads, name), at, at);
    }

    t = await startApp(database);

    expect(readdirSync(uploads).sort()).toEqual(['receiving-now', 'recent-upload']);
  });
});
