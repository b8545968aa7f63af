import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { WorkerRepository } from '../../src/dispatch/worker.repository';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';

/*
 * The purge of expired idempotency keys that the oldest live worker runs (docs/idempotency.md):
 * keys expired at the moment go, in batches of the size asked, the live ones stay.
 */
describeEachDatabase('WorkerRepository.removeExpiredKeys', (database) => {
  let ds: DataSource;
  let workers: WorkerRepository;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
    workers = new WorkerRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it('removes the keys expired at the moment, at most `limit` at a time, and keeps the others', async () => {
    const { user } = await makeUser(ds);
    const key = (name: string, expiresAt: string) =>
      ds.query(
        'INSERT INTO idempotency_key (id_user, idem_key, fingerprint, status, answer, ' +
          "created_at, expires_at) VALUES (?, ?, 'f', 200, '{}', '2026-01-01 00:00:00', ?)",
        [user.id, name, expiresAt],
      );
    await key('old-1', '2026-01-02 00:00:00');
    await key('old-2', '2026-01-02 00:00:01');
    await key('old-3', '2026-01-03 00:00:00');
    await key('at-now', '2026-01-04 00:00:00');
    await key('live', '2026-01-04 00:00:01');
    const remaining = async () =>
      (
        await ds.query<Array<{ idem_key: string }>>(
          'SELECT idem_key FROM idempotency_key WHERE id_user = ? ORDER BY idem_key',
          [user.id],
        )
      ).map((row) => row.idem_key);

    const first = await workers.removeExpiredKeys('2026-01-04 00:00:00', 2);
    const afterFirst = await remaining();
    const second = await workers.removeExpiredKeys('2026-01-04 00:00:00', 2);
    const third = await workers.removeExpiredKeys('2026-01-04 00:00:00', 2);

    expect([first, second, third]).toEqual([2, 2, 0]);
    expect(afterFirst).toEqual(['at-now', 'live', 'old-3']);
    expect(await remaining()).toEqual(['live']);
  });
});
