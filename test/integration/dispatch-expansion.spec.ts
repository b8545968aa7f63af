import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExpansionService } from '../../src/dispatch/expansion.service';
import { SenderService } from '../../src/dispatch/sender.service';
import { startApp, TestApp } from '../support/app';
import { curlMultipart } from '../support/curl';
import {
  createTestDatabase,
  DATABASE_KINDS,
  describeEachDatabase,
  TestDatabase,
} from '../support/databases';
import { insertRows, makeConditionalGroup, makePhone, makeUser } from '../support/factories';
import { countRows, filesUnder, PNG } from '../support/scheduled.factories';

/*
 * Due messages are expanded into the outbox a budget of recipients per transaction (500), and
 * a batch's worth (DISPATCH_BATCH_SIZE, 500 here) before a claim: many small messages together,
 * a large one in chunks whose cursor is kept on its row, resumed where it stopped, in recipient
 * order and each destination once. Driven step by step through the services of an app whose
 * worker is off.
 */

const BUDGET = 500;
const BATCH = 500;
const DUE = '2020-01-01 00:00:00';
const LATER = '2999-01-01 00:00:00';

const insertedId = (result: unknown): number =>
  typeof result === 'number' ? result : Number((result as { insertId: number }).insertId);

/** `count` French mobile numbers from `offset`. */
const numbers = (count: number, offset: number) =>
  Array.from({ length: count }, (_, index) => `+336${String(10_000_000 + offset + index)}`);

interface NewMessage {
  at?: string;
  numbers?: string[];
  contactIds?: number[];
  groupIds?: number[];
  conditionalGroupIds?: number[];
}

async function newMessage(ds: DataSource, userId: number, message: NewMessage): Promise<number> {
  const id = insertedId(
    await ds.query(
      'INSERT INTO scheduled (id_user, at, send_after, text, flash, mms, created_at) ' +
        'VALUES (?, ?, ?, ?, 0, 0, ?)',
      [userId, message.at ?? DUE, message.at ?? DUE, 'Hello', DUE],
    ),
  );
  const links: Array<[string, string, number[]]> = [
    ['scheduled_contact', 'id_contact', message.contactIds ?? []],
    ['scheduled_group', 'id_group', message.groupIds ?? []],
    ['scheduled_conditional_group', 'id_conditional_group', message.conditionalGroupIds ?? []],
  ];
  await insertRows(
    ds,
    'scheduled_number',
    ['id_scheduled', 'number', 'data', 'created_at'],
    (message.numbers ?? []).map((number) => [id, number, '[]', DUE]),
  );
  for (const [table, column, ids] of links) {
    await insertRows(
      ds,
      table,
      ['id_scheduled', column, 'created_at'],
      ids.map((linked) => [id, linked, DUE]),
    );
  }
  return id;
}

/** Contacts of the user, in id order; their ids. */
async function newContacts(
  ds: DataSource,
  userId: number,
  contacts: Array<{ number: string; data: string }>,
): Promise<number[]> {
  const tag = `c${Date.now()}${Math.random()}`;
  await insertRows(
    ds,
    'contact',
    ['id_user', 'name', 'number', 'data', 'created_at'],
    contacts.map((contact, index) => [
      userId,
      `${tag}-${index}`,
      contact.number,
      contact.data,
      DUE,
    ]),
  );
  const rows = await ds.query<Array<{ id: number }>>(
    'SELECT id FROM contact WHERE id_user = ? AND name LIKE ? ORDER BY id',
    [userId, `${tag}-%`],
  );
  return rows.map((row) => Number(row.id));
}

/** A group whose members are `contactIds`, in that membership order. */
async function newGroup(ds: DataSource, userId: number, contactIds: number[]): Promise<number> {
  const id = insertedId(
    await ds.query('INSERT INTO contact_group (id_user, name, created_at) VALUES (?, ?, ?)', [
      userId,
      `group ${Date.now()} ${Math.random()}`,
      DUE,
    ]),
  );
  for (const contact of contactIds) {
    await ds.query(
      'INSERT INTO group_contact (id_group, id_contact, created_at) VALUES (?, ?, ?)',
      [id, contact, DUE],
    );
  }
  return id;
}

describeEachDatabase('expansion of due messages in chunks', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let expansion: ExpansionService;
  let sender: SenderService;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'off', DISPATCH_BATCH_SIZE: String(BATCH) });
    ds = t.dataSource;
    expansion = t.app.get(ExpansionService);
    sender = t.app.get(SenderService);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(async () => {
    await ds.query('DELETE FROM outbox');
    await ds.query('DELETE FROM scheduled');
  });

  const queued = async (scheduledId: number): Promise<string[]> =>
    (
      await ds.query<Array<{ destination: string }>>(
        'SELECT destination FROM outbox WHERE originating_scheduled = ? ORDER BY id',
        [scheduledId],
      )
    ).map((row) => row.destination);

  const cursorOf = async (scheduledId: number) =>
    (
      await ds.query<Array<{ phase: string | null; link: number | null; after: number | null }>>(
        'SELECT expansion_phase AS phase, expansion_link AS link, expansion_after AS after ' +
          'FROM scheduled WHERE id = ?',
        [scheduledId],
      )
    ).map((row) => ({ phase: row.phase, link: Number(row.link), after: Number(row.after) }))[0];

  /** Expands until nothing is due; the rows each step queued. */
  const expandAll = async (scheduledId: number): Promise<number[]> => {
    const steps: number[] = [];
    let before = (await queued(scheduledId)).length;
    while (await expansion.expandNext()) {
      const now = (await queued(scheduledId)).length;
      steps.push(now - before);
      before = now;
    }
    return steps;
  };

  it('queues many one-recipient messages in one transaction, and a full batch of them before a claim', async () => {
    const { user } = await makeUser(ds);
    await makePhone(ds, user.id);
    // More than a first transaction and then a batch's worth.
    const messages = BUDGET + BATCH + 300;
    const destinations = numbers(messages, 0);
    for (const destination of destinations) {
      await newMessage(ds, user.id, { numbers: [destination] });
    }
    const counts = async () => ({
      left: await countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled WHERE id_user = ?', [user.id]),
      queued: await countRows(ds, 'SELECT COUNT(*) AS n FROM outbox WHERE id_user = ?', [user.id]),
    });

    await expansion.expandNext();
    const afterOneTransaction = await counts();
    await expansion.expandBatch();
    const afterABatch = await counts();
    const handled = await sender.sendBatches('worker-a', 1);
    const sent = await ds.query<Array<{ destination: string }>>(
      'SELECT destination FROM sended WHERE id_user = ? ORDER BY id',
      [user.id],
    );

    expect({ afterOneTransaction, afterABatch, handled }).toEqual({
      afterOneTransaction: { left: messages - BUDGET, queued: BUDGET },
      afterABatch: { left: messages - BUDGET - BATCH, queued: BUDGET + BATCH },
      handled: BATCH,
    });
    expect(sent.map((row) => row.destination)).toEqual(destinations.slice(0, BATCH));
  });

  it('expands a message larger than the budget a chunk at a time, in recipient order, each destination once, the STOP list applied', async () => {
    const { user } = await makeUser(ds);
    const contacts = await newContacts(
      ds,
      user.id,
      numbers(1200, 100_000).map((number, index) => ({
        number,
        data: JSON.stringify({ gender: index % 2 === 0 ? 'female' : 'male' }),
      })),
    );
    const contactNumber = (id: number) => numbers(1200, 100_000)[contacts.indexOf(id)];
    // Members linked from the last contact down: a group's members come in membership order.
    const members = contacts.slice(600).reverse();
    const group = await newGroup(ds, user.id, members);
    const female = await makeConditionalGroup(ds, user.id, {
      condition: "contact.gender == 'female'",
    });
    const sameCondition = await makeConditionalGroup(ds, user.id, {
      condition: "contact.gender == 'female'",
    });
    const male = await makeConditionalGroup(ds, user.id, { condition: "contact.gender == 'male'" });
    // The first contact's number is also a number of the message: the number, first, wins.
    const ownNumbers = [...numbers(699, 0), contactNumber(contacts[0])];
    const stopped = ownNumbers[7];
    await ds.query('INSERT INTO smsstop (id_user, number, created_at) VALUES (?, ?, ?)', [
      user.id,
      stopped,
      DUE,
    ]);
    const id = await newMessage(ds, user.id, {
      numbers: ownNumbers,
      contactIds: [contacts[10], contacts[3]],
      groupIds: [group],
      conditionalGroupIds: [female.id, sameCondition.id, male.id],
    });
    const expected = [
      ...new Set([
        ...ownNumbers,
        contactNumber(contacts[10]),
        contactNumber(contacts[3]),
        ...members.map(contactNumber),
        ...contacts.filter((_, index) => index % 2 === 0).map(contactNumber),
        ...contacts.filter((_, index) => index % 2 === 1).map(contactNumber),
      ]),
    ].filter((number) => number !== stopped);

    expect(await expansion.expandNext()).toBe(true);
    const firstChunk = await queued(id);
    const cursor = await cursorOf(id);
    const [lastRead] = await ds.query<Array<{ id: number }>>(
      `SELECT id FROM scheduled_number WHERE id_scheduled = ? ORDER BY id LIMIT 1 OFFSET ${BUDGET - 1}`,
      [id],
    );
    const steps = await expandAll(id);

    // 250 numbers read, one of them on the STOP list.
    expect(firstChunk).toEqual(expected.slice(0, BUDGET - 1));
    expect(cursor).toEqual({ phase: 'numbers', link: 0, after: Number(lastRead.id) });
    expect(steps.every((rows) => rows <= BUDGET)).toBe(true);
    expect(steps.length).toBeGreaterThanOrEqual(5);
    expect(await queued(id)).toEqual(expected);
    expect(await countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled WHERE id = ?', [id])).toBe(0);
  });

  it('queues nothing of a chunk whose transaction fails, and the whole chunk once afterwards', async () => {
    const { user } = await makeUser(ds);
    const all = numbers(1200, 200_000);
    const id = await newMessage(ds, user.id, { numbers: all });
    // The second chunk fails half-way, as a worker killed in its transaction would.
    const refused = all[BUDGET + 150];
    await ds.query(
      ds.options.type === 'mysql'
        ? 'CREATE TRIGGER refuse_one BEFORE INSERT ON outbox FOR EACH ROW BEGIN ' +
            `IF NEW.destination = '${refused}' THEN ` +
            "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END"
        : 'CREATE TRIGGER refuse_one BEFORE INSERT ON outbox ' +
            `WHEN NEW.destination = '${refused}' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    try {
      await expansion.expandNext();
      const afterFirst = await cursorOf(id);

      await expect(expansion.expandNext()).rejects.toThrow('refused');
      const afterFailure = { rows: (await queued(id)).length, cursor: await cursorOf(id) };

      expect(afterFailure).toEqual({ rows: BUDGET, cursor: afterFirst });
    } finally {
      await ds.query('DROP TRIGGER refuse_one');
    }
    await expandAll(id);

    expect(await queued(id)).toEqual(all);
  });

  it('stops a postponed message where it is, and resumes once it is due again', async () => {
    const { user } = await makeUser(ds);
    const all = numbers(1200, 300_000);
    const id = await newMessage(ds, user.id, { numbers: all });

    await expansion.expandNext();
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [LATER, LATER, id]);
    const whilePostponed = await expansion.expandNext();
    const queuedMeanwhile = (await queued(id)).length;
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [DUE, DUE, id]);
    await expandAll(id);

    expect({ whilePostponed, queuedMeanwhile }).toEqual({
      whilePostponed: false,
      queuedMeanwhile: BUDGET,
    });
    expect(await queued(id)).toEqual(all);
  });

  it('deleting a partly queued message queues no more of it; what was queued is sent, with its medias', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    const all = numbers(1200, 400_000);
    const { body, contentType } = curlMultipart([
      { name: 'text', value: 'See this' },
      { name: 'at', value: LATER },
      { name: 'mms', value: '1' },
      { name: 'medias[]', value: PNG, filename: 'image.png' },
      ...all.map((number) => ({ name: 'numbers[]', value: number })),
    ]);
    const created = await request(t.url)
      .post('/api/scheduled/')
      .query({ api_key: apiKey })
      .set('Content-Type', contentType)
      .send(body);
    const id = (created.body as { response: number }).response;
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [DUE, DUE, id]);
    await expansion.expandNext();

    const deleted = await request(t.url).delete(`/api/scheduled/${id}/`).query({ api_key: apiKey });
    const expandedAfter = await expansion.expandNext();
    await sender.sendBatches('worker-a', 5);
    const sent = await ds.query<Array<{ destination: string; mms: number }>>(
      'SELECT destination, mms FROM sended WHERE originating_scheduled = ? ORDER BY id',
      [id],
    );
    const links = await countRows(
      ds,
      'SELECT COUNT(*) AS n FROM media_sended l JOIN sended s ON s.id = l.id_sended ' +
        'WHERE s.originating_scheduled = ?',
      [id],
    );

    expect(created.status).toBe(201);
    expect(deleted.status).toBe(200);
    expect(expandedAfter).toBe(false);
    expect(sent.map((row) => row.destination)).toEqual(all.slice(0, BUDGET));
    expect(links).toBe(BUDGET);
    expect(filesUnder(join(database().dataDir, 'media'))).toHaveLength(1);
  });
});

(DATABASE_KINDS.includes('mariadb') ? describe : describe.skip)(
  'expansion by two workers [mariadb]',
  () => {
    let database: TestDatabase;
    let apps: TestApp[];

    beforeAll(async () => {
      database = await createTestDatabase('mariadb');
      apps = [await startApp(database), await startApp(database)];
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.close()));
      await database.drop();
    });

    it('never queue the same chunk twice', async () => {
      const ds = apps[0].dataSource;
      const { user } = await makeUser(ds);
      const all = numbers(6000, 0);
      await newMessage(ds, user.id, { numbers: all });
      const inserted: string[][] = apps.map(() => []);
      const spies = apps.map((app, index) =>
        jest.spyOn(app.dataSource.logger, 'logQuery').mockImplementation((sql, parameters) => {
          if (sql.startsWith('INSERT IGNORE INTO outbox')) {
            // Each row has a value per column of the statement's list, destination among them.
            const columns = sql
              .slice(sql.indexOf('(') + 1, sql.indexOf(')'))
              .split(',')
              .map((column) => column.trim());
            const values = parameters ?? [];
            for (let start = 0; start < values.length; start += columns.length) {
              inserted[index].push(String(values[start + columns.indexOf('destination')]));
            }
          }
        }),
      );
      try {
        const left = () => countRows(ds, 'SELECT COUNT(*) AS n FROM scheduled', []);
        await Promise.all(
          apps.map(async (app) => {
            const expansion = app.app.get(ExpansionService);
            while ((await left()) > 0) {
              await expansion.expandNext();
            }
          }),
        );
      } finally {
        spies.forEach((spy) => spy.mockRestore());
      }

      expect(inserted.every((rows) => rows.length > 0)).toBe(true);
      expect([...inserted[0], ...inserted[1]].sort()).toEqual([...all].sort());
      expect(
        await countRows(ds, 'SELECT COUNT(*) AS n FROM outbox WHERE id_user = ?', [user.id]),
      ).toBe(6000);
    });
  },
);
