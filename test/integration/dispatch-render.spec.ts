import { DataSource } from 'typeorm';
import { nowUtc } from '../../src/common/time/datetime';
import { migrate } from '../../src/database/data-source';
import { ExpansionRepository } from '../../src/dispatch/expansion.repository';
import { RenderingRepository } from '../../src/dispatch/rendering.repository';
import { WorkerRepository } from '../../src/dispatch/worker.repository';
import { openTestDataSource } from '../support/app';
import {
  createTestDatabase,
  DATABASE_KINDS,
  describeEachDatabase,
  TestDatabase,
} from '../support/databases';
import { makeUser } from '../support/factories';

/*
 * Rows whose text is a template wait `unrendered` until a worker renders them, outside any
 * transaction: a render is stored once, and on MariaDB workers lease different pages, a lease
 * of a worker that stopped being free again.
 */

/** A migrated database with a user, and a way to queue unrendered rows of new messages. */
function renderFixture(database: () => TestDatabase) {
  const fixture = {
    ds: undefined as unknown as DataSource,
    repository: undefined as unknown as RenderingRepository,
    expansion: undefined as unknown as ExpansionRepository,
    workers: undefined as unknown as WorkerRepository,
    userId: 0,
    scheduledId: 0,
  };
  beforeAll(async () => {
    fixture.ds = await openTestDataSource(database());
    await migrate(fixture.ds);
    fixture.repository = new RenderingRepository(fixture.ds);
    fixture.expansion = new ExpansionRepository(fixture.ds);
    fixture.workers = new WorkerRepository(fixture.ds);
    fixture.userId = (await makeUser(fixture.ds)).user.id;
  });
  afterAll(async () => {
    await fixture.ds.destroy();
  });
  afterEach(async () => {
    await fixture.ds.query('DELETE FROM outbox');
    await fixture.ds.query('DELETE FROM worker');
  });

  /** Queues `count` unrendered rows of a new message; their ids. */
  const queueUnrendered = async (count: number): Promise<number[]> => {
    fixture.scheduledId += 1;
    await fixture.expansion.queue(
      fixture.ds.manager,
      Array.from({ length: count }, (_, index) => ({
        id_user: fixture.userId,
        originating_scheduled: fixture.scheduledId,
        id_phone: null,
        id_phone_group: null,
        destination: `+3361234${String(index).padStart(4, '0')}`,
        text: TEMPLATE,
        priority: 0,
        effective_window: null,
        flash: 0,
        mms: 0,
        tag: null,
        expires_at: null,
        media_ids: null,
        state: 'unrendered' as const,
        error: null,
        render_input: RENDER_INPUT,
      })),
      nowUtc(),
    );
    const rows = await fixture.ds.query<Array<{ id: number }>>(
      'SELECT id FROM outbox WHERE originating_scheduled = ? ORDER BY id',
      [fixture.scheduledId],
    );
    return rows.map((row) => Number(row.id));
  };
  return { fixture, queueUnrendered };
}

const TEMPLATE = 'Hi {{ contact.name }}';
const RENDER_INPUT = JSON.stringify({ data: '{"name":"Ada"}', metas: {}, gsm: false });

const byId = (x: number, y: number) => x - y;

describeEachDatabase('renders of queued templates', (database) => {
  const { fixture, queueUnrendered } = renderFixture(database);

  it('stores each render as queued with its text or rejected with its reason, only once', async () => {
    const { ds, repository } = fixture;
    const [first, second] = await queueUnrendered(2);

    await repository.storeRendered(
      [
        { id: first, text: 'Hi Ada' },
        { id: second, reason: 'The rendered text is empty.' },
      ],
      nowUtc(),
    );
    // Another worker's render of the same rows, finished later: ignored.
    await repository.storeRendered(
      [
        { id: first, text: 'Hi again' },
        { id: second, text: 'Hi again' },
      ],
      nowUtc(),
    );

    const rows = await ds.query<unknown[]>(
      'SELECT id, state, text, error, render_input, claimed_by FROM outbox ORDER BY id',
    );
    expect(rows).toEqual([
      {
        id: first,
        state: 'queued',
        text: 'Hi Ada',
        error: null,
        render_input: null,
        claimed_by: null,
      },
      {
        id: second,
        state: 'rejected',
        text: TEMPLATE,
        error: 'The rendered text is empty.',
        render_input: null,
        claimed_by: null,
      },
    ]);
    expect(await repository.leaseUnrendered('worker-a', 10)).toEqual([]);
  });

  it('gives the oldest rows first, with what their render needs', async () => {
    const ids = await queueUnrendered(3);

    const rows = await fixture.repository.leaseUnrendered('worker-a', 2);

    expect(rows).toEqual([
      { id: ids[0], text: TEMPLATE, media_ids: null, render_input: RENDER_INPUT },
      { id: ids[1], text: TEMPLATE, media_ids: null, render_input: RENDER_INPUT },
    ]);
  });
});

(DATABASE_KINDS.includes('mariadb') ? describe : describe.skip)(
  'renders of queued templates by several workers [mariadb]',
  () => {
    let database: TestDatabase | undefined;
    beforeAll(async () => {
      database = await createTestDatabase('mariadb');
    });
    const { fixture, queueUnrendered } = renderFixture(() => database as TestDatabase);
    afterAll(async () => {
      await database?.drop();
    });

    it('leases different rows to two live workers, and those of a forgotten worker again', async () => {
      const { repository, workers } = fixture;
      const ids = await queueUnrendered(10);
      await workers.heartbeat('worker-a', nowUtc());
      await workers.heartbeat('worker-b', nowUtc());

      const [a, b] = await Promise.all([
        repository.leaseUnrendered('worker-a', 5),
        repository.leaseUnrendered('worker-b', 5),
      ]);
      await workers.unregisterWorker('worker-a');
      const again = await repository.leaseUnrendered('worker-b', 10);

      expect([...a, ...b].map((row) => row.id).sort(byId)).toEqual(ids);
      expect(again.map((row) => row.id).sort(byId)).toEqual(ids);
    });
  },
);
