import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { UNKNOWN_OUTCOME } from '../../src/dispatch/recording.service';
import { FakeServer, startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { openTestDataSource } from '../support/app';
import { createTestDatabase, DATABASE_KINDS, DatabaseKind } from '../support/databases';
import { insertRows, makeConditionalGroup, makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { Processes } from '../support/processes';

/*
 * A message far larger than a transaction's budget is expanded in chunks, its cursor on its row:
 * the built processes (`npm test` builds `dist/` first) are killed with SIGKILL while it is
 * being expanded, each kind of its recipients in turn (numbers, groups, a conditional group),
 * then at random moments, and started again. Afterwards every recipient has exactly one
 * `sended` entry, and the provider (a Kannel fake counting what it receives) got none twice.
 */

const STAMP = '2020-01-01 00:00:00';

/** The kinds of recipients in the order they are expanded (`scheduled.expansion_phase`). */
const PHASES = ['numbers', 'contacts', 'groups', 'conditions'];

const numberAt = (index: number) => `+336${String(10_000_000 + index)}`;

const insertedId = (result: unknown): number =>
  typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);

/**
 * One message, not due yet: 6,000 numbers; a group of 3,000 contacts, 1,000 of whose numbers
 * are among those; a conditional group matching 1,000 of 2,000 other contacts. The expected
 * destinations.
 */
async function seedCampaign(ds: DataSource, userId: number, phoneId: number): Promise<string[]> {
  const scheduledId = insertedId(
    await ds.query(
      'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, id_phone, created_at) ' +
        'VALUES (?, ?, ?, ?, 0, 0, ?, ?)',
      [userId, '2999-01-01 00:00:00', '2999-01-01 00:00:00', 'Chunks', phoneId, STAMP],
    ),
  );
  await insertRows(
    ds,
    'scheduled_number',
    ['id_scheduled', 'number', 'data', 'created_at'],
    Array.from({ length: 6000 }, (_, index) => [scheduledId, numberAt(index), '[]', STAMP]),
  );
  await insertRows(
    ds,
    'contact',
    ['id_user', 'name', 'number', 'data', 'created_at'],
    Array.from({ length: 5000 }, (_, index) => [
      userId,
      `contact ${index}`,
      numberAt(5000 + index),
      JSON.stringify({ gender: index >= 3000 && index % 2 === 0 ? 'female' : 'male' }),
      STAMP,
    ]),
  );
  const contacts = (
    await ds.query<Array<{ id: number }>>('SELECT id FROM contact WHERE id_user = ? ORDER BY id', [
      userId,
    ])
  ).map((row) => Number(row.id));
  const groupId = insertedId(
    await ds.query('INSERT INTO contact_group (id_user, name, created_at) VALUES (?, ?, ?)', [
      userId,
      'group',
      STAMP,
    ]),
  );
  await insertRows(
    ds,
    'group_contact',
    ['id_group', 'id_contact', 'created_at'],
    contacts.slice(0, 3000).map((contact) => [groupId, contact, STAMP]),
  );
  const conditional = await makeConditionalGroup(ds, userId, {
    condition: "contact.gender == 'female'",
  });
  await ds.query(
    'INSERT INTO scheduled_group (id_scheduled, id_group, created_at) VALUES (?, ?, ?)',
    [scheduledId, groupId, STAMP],
  );
  await ds.query(
    'INSERT INTO scheduled_conditional_group (id_scheduled, id_conditional_group, created_at) VALUES (?, ?, ?)',
    [scheduledId, conditional.id, STAMP],
  );
  return [
    ...Array.from({ length: 8000 }, (_, index) => numberAt(index)),
    ...Array.from({ length: 1000 }, (_, index) => numberAt(8000 + index * 2)),
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function crashTest(
  kind: DatabaseKind,
  script: string,
  processes: number,
  env: Record<string, string>,
): Promise<void> {
  const database = await createTestDatabase(kind);
  const received = new Map<string, number>();
  const kannel: FakeServer = await startFakeServer((request, response) => {
    const to = new URL(request.url ?? '/', 'http://kannel').searchParams.get('to') ?? '';
    received.set(to, (received.get(to) ?? 0) + 1);
    response.writeHead(202, { 'Content-Type': 'text/plain' });
    response.end('0: Accepted for delivery');
  });
  const ds = await openTestDataSource(database);
  const running = Processes.dispatchers(script, database, env);
  try {
    await migrate(ds);
    const { user } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, {
      adapter: 'kannel',
      adapter_data: kannelAdapterData(kannel.url),
    });
    const expected = await seedCampaign(ds, user.id, phone.id);
    const count = async (sql: string) =>
      Number((await ds.query<Array<{ n: number | string }>>(sql))[0].n);
    const phase = async () =>
      (
        await ds.query<Array<{ phase: string | null }>>(
          'SELECT expansion_phase AS phase FROM scheduled',
        )
      )[0]?.phase;
    const done = async () =>
      (await count('SELECT COUNT(*) AS n FROM sended')) >= expected.length &&
      (await count('SELECT COUNT(*) AS n FROM outbox')) === 0;
    for (let i = 0; i < processes; i++) {
      running.start();
    }
    await waitFor(
      async () => (await count('SELECT COUNT(*) AS n FROM worker')) >= processes,
      'the workers',
    );
    await ds.query('UPDATE scheduled SET at = ?, send_after = ?', [STAMP, STAMP]);

    let kills = 0;
    // Each kill lands once the expansion has reached those recipients, or gone past them.
    for (const reached of ['numbers', 'groups', 'conditions']) {
      await waitFor(async () => {
        const current = await phase();
        return current === undefined || PHASES.indexOf(current ?? '') >= PHASES.indexOf(reached);
      }, `the expansion of ${reached}`);
      await running.killOneAndRestart();
      kills++;
    }
    while (kills < 8 && !(await done())) {
      await sleep(100 + Math.random() * 800);
      await running.killOneAndRestart();
      kills++;
    }
    await waitFor(done, `${expected.length} sent entries`, 150_000);

    const entries = await ds.query<
      Array<{ destination: string; status: string; error: string | null }>
    >('SELECT destination, status, error FROM sended ORDER BY id');
    const perDestination = new Map<string, number>();
    for (const entry of entries) {
      perDestination.set(entry.destination, (perDestination.get(entry.destination) ?? 0) + 1);
    }
    expect(entries).toHaveLength(expected.length);
    expect([...perDestination.keys()].sort()).toEqual([...expected].sort());
    expect([...received.values()].every((n) => n === 1)).toBe(true);
    for (const entry of entries) {
      if (entry.error === UNKNOWN_OUTCOME) {
        expect(entry.status).toBe('unknown');
      } else {
        expect({
          destination: entry.destination,
          error: entry.error,
          received: received.get(entry.destination),
        }).toEqual({
          destination: entry.destination,
          error: null,
          received: 1,
        });
      }
    }
    expect(await count('SELECT COUNT(*) AS n FROM scheduled')).toBe(0);
  } finally {
    await running.stopAll();
    await ds.destroy();
    await kannel.close();
    await database.drop();
  }
}

describe('a message expanded in chunks, under SIGKILL: never lost, never twice', () => {
  jest.setTimeout(240_000);

  it('inline worker on SQLite, the API process killed and restarted', async () => {
    await crashTest('sqlite', 'main.js', 1, { WORKER: 'inline', PORT: '0', HOST: '127.0.0.1' });
  });

  (DATABASE_KINDS.includes('mariadb') ? it : it.skip)(
    'three worker processes on MariaDB, one killed at a time',
    async () => {
      await crashTest('mariadb', 'worker.js', 3, {});
    },
  );
});
