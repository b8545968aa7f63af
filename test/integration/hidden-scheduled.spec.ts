import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { DriverRunner } from '../../src/database/driver/runner';
import { rowMarks } from '../../src/database/driver/placeholders';
import { ExpansionRepository } from '../../src/dispatch/expansion.repository';
import { WorkerRepository } from '../../src/dispatch/worker.repository';
import { HIDDEN_SEND_AFTER, NUMBERS_PER_REMOVAL } from '../../src/messages/hidden-messages';
import { openTestDataSource } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeScheduled, makeUser } from '../support/factories';
import { countRows } from '../support/scheduled.factories';

/*
 * Hidden scheduled messages (src/messages/hidden-messages.ts), a large message while its numbers
 * are being written: the dispatch never takes one, and the worker removes those a stopped process
 * left behind, in bounded parts, leaving the recent hidden ones and the visible ones alone.
 */
describeEachDatabase('hidden scheduled messages', (database) => {
  let ds: DataSource;

  beforeAll(async () => {
    ds = await openTestDataSource(database());
    await migrate(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  /** `count` numbers of the message `id`, in multi-row INSERTs. */
  const addNumbers = async (id: number, count: number) => {
    for (let start = 0; start < count; start += 500) {
      const rows = Math.min(500, count - start);
      await ds.query(
        'INSERT INTO scheduled_number (id_scheduled, number, data, created_at) VALUES ' +
          rowMarks(rows, 4),
        Array.from({ length: rows }, (_, i) => [
          id,
          `+336${String(start + i).padStart(8, '0')}`,
          '[]',
          '2026-01-01 00:00:00',
        ]).flat(),
      );
    }
  };

  it('never hands a hidden message to the dispatch, which takes a visible one due as early', async () => {
    const { user } = await makeUser(ds);
    const hidden = await makeScheduled(ds, user.id, {
      at: '2026-01-01 00:00:00',
      send_after: HIDDEN_SEND_AFTER,
      hidden: 1,
      numbers: [{ number: '+33612345678' }],
    });
    const visible = await makeScheduled(ds, user.id, {
      at: '2026-01-01 00:00:00',
      numbers: [{ number: '+33612345679' }],
    });
    const expansion = new ExpansionRepository(ds);

    const due = await DriverRunner.for(ds).transaction(
      expansion.lockDue('2026-06-01 00:00:00', 100),
    );

    const ids = due.map((message) => Number(message.id));
    expect(ids).toContain(visible.id);
    expect(ids).not.toContain(hidden.id);
    await ds.query('DELETE FROM scheduled WHERE id IN (?, ?)', [hidden.id, visible.id]);
  });

  it('removes the hidden messages that have not moved since the bound, numbers first in bounded parts, and leaves the others', async () => {
    const { user } = await makeUser(ds);
    const abandoned = await makeScheduled(ds, user.id, {
      send_after: HIDDEN_SEND_AFTER,
      hidden: 1,
      created_at: '2026-01-01 00:00:00',
    });
    await addNumbers(abandoned.id, NUMBERS_PER_REMOVAL + 10);
    const recent = await makeScheduled(ds, user.id, {
      send_after: HIDDEN_SEND_AFTER,
      hidden: 1,
      created_at: '2026-01-01 00:20:00',
      numbers: [{ number: '+33612345678' }],
    });
    // Created long before, but a part of its numbers written since.
    const moving = await makeScheduled(ds, user.id, {
      send_after: HIDDEN_SEND_AFTER,
      hidden: 1,
      created_at: '2026-01-01 00:00:00',
      updated_at: '2026-01-01 00:15:00',
      numbers: [{ number: '+33612345670' }],
    });
    const visible = await makeScheduled(ds, user.id, {
      created_at: '2026-01-01 00:00:00',
      numbers: [{ number: '+33612345679' }],
    });
    const workers = new WorkerRepository(ds);
    const numbersOf = (id: number) =>
      countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled_number WHERE id_scheduled = ?', [id]);

    const found = await workers.abandonedHidden('2026-01-01 00:10:00');
    const parts: Array<[boolean, number]> = [];
    for (let gone = false; !gone;) {
      gone = await workers.removeHiddenPart(abandoned.id);
      parts.push([gone, await numbersOf(abandoned.id)]);
    }
    const visibleLeftAlone = await workers.removeHiddenPart(visible.id);

    expect(found).toEqual([abandoned.id]);
    expect(parts).toEqual([
      [false, 10],
      [false, 0],
      [true, 0],
    ]);
    expect(visibleLeftAlone).toBe(true);
    const left = await ds.query<Array<{ id: number | string }>>(
      'SELECT id FROM scheduled WHERE id_user = ? ORDER BY id',
      [user.id],
    );
    expect(left.map((row) => Number(row.id))).toEqual([recent.id, moving.id, visible.id]);
    expect([
      await numbersOf(recent.id),
      await numbersOf(moving.id),
      await numbersOf(visible.id),
    ]).toEqual([1, 1, 1]);
  });
});
