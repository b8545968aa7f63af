import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { QUOTA_SPENT } from '../../src/dispatch/quota-budget';
import { FakeServer, startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { openTestDataSource } from '../support/app';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { insertRows, makePhone, makeQuota, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { Processes } from '../support/processes';

/*
 * Two workers never both spend the last credit (docs/dispatch.md#quotas), proven on the built
 * worker processes (`npm test` builds `dist/` first) sharing one MariaDB database: a campaign
 * of one- and two-segment texts, far larger than the quota, is dispatched by two processes
 * claiming small batches at once through a Kannel fake that takes a while to answer, so that
 * both hold reservations at the same time. The segments of the entries that went are exactly
 * the quota, and every other recipient is a failed entry saying the credit is spent.
 */

/** Users, each with a quota and a campaign: each quota's last credits are a contest of its own. */
const USERS = 6;
const CREDIT = 70;
const ADDITIONAL = 11;
const BATCH = 20;

/**
 * A one-segment and a two-segment text, sent side by side. More one-segment recipients than
 * the quota holds: when a single credit is left, one of them is still to come and takes it, so
 * the quota is spent to its last credit whatever the order of the claims.
 */
const CAMPAIGN = [
  { text: 'Quota test', recipients: 90 },
  { text: `Quota test ${'x'.repeat(160)}`, recipients: 60 },
];
const PER_USER = CAMPAIGN.reduce((sum, { recipients }) => sum + recipients, 0);

(DATABASE_KINDS.includes('mariadb') ? describe : describe.skip)(
  'a quota spent by two worker processes on MariaDB',
  () => {
    jest.setTimeout(120_000);
    let database: TestDatabase;
    let ds: DataSource;
    let running: Processes;
    let kannel: FakeServer;
    const received: string[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('mariadb');
      ds = await openTestDataSource(database);
      await migrate(ds);
      running = Processes.dispatchers('worker.js', database, {
        DISPATCH_BATCH_SIZE: String(BATCH),
      });
      kannel = await startFakeServer((incoming, response) => {
        received.push(new URL(incoming.url ?? '/', 'http://kannel').searchParams.get('to') ?? '');
        setTimeout(() => {
          response.writeHead(202, { 'Content-Type': 'text/plain' });
          response.end('0: Accepted for delivery');
        }, 10);
      });
    });
    afterAll(async () => {
      await running.stopAll();
      await kannel.close();
      await ds.destroy();
      await database.drop();
    });

    /** A user with a Kannel phone, a quota and a campaign due. */
    async function userWithCampaign(offset: number): Promise<number> {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, {
        adapter: 'kannel',
        adapter_data: kannelAdapterData(kannel.url),
      });
      await makeQuota(ds, user.id, { credit: CREDIT, additional: ADDITIONAL });
      for (const [index, { text, recipients }] of CAMPAIGN.entries()) {
        await insertRows(
          ds,
          'scheduled',
          ['id_user', 'at', 'send_after', 'text', 'flash', 'mms', 'id_phone', 'created_at'],
          [
            [
              user.id,
              '2020-01-01 00:00:00',
              '2020-01-01 00:00:00',
              text,
              0,
              0,
              phone.id,
              '2020-01-01 00:00:00',
            ],
          ],
        );
        const [{ id }] = await ds.query<Array<{ id: number }>>(
          'SELECT MAX(id) AS id FROM scheduled WHERE id_user = ?',
          [user.id],
        );
        await insertRows(
          ds,
          'scheduled_number',
          ['id_scheduled', 'number', 'data', 'created_at'],
          Array.from({ length: recipients }, (_, n) => [
            id,
            `+336${String(30_000_000 + offset + index * 1_000 + n)}`,
            '[]',
            '2020-01-01 00:00:00',
          ]),
        );
      }
      return user.id;
    }

    it('spends each quota to its last credit, never more; every recipient beyond is a failed entry saying why', async () => {
      const userIds: number[] = [];
      for (let n = 0; n < USERS; n++) {
        userIds.push(await userWithCampaign(n * 10_000));
      }

      running.start();
      running.start();
      const count = async (sql: string) =>
        Number((await ds.query<Array<{ n: number | string }>>(sql))[0].n);
      // Whether both processes were seen holding claims at once.
      let both = false;
      let watching = true;
      const watch = (async () => {
        while (watching) {
          both ||=
            (await count(
              "SELECT COUNT(DISTINCT claimed_by) AS n FROM outbox WHERE state = 'sending'",
            )) > 1;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      await waitFor(
        async () =>
          (await count('SELECT COUNT(*) AS n FROM sended')) === USERS * PER_USER &&
          (await count('SELECT COUNT(*) AS n FROM outbox')) === 0,
        `${USERS * PER_USER} entries`,
        90_000,
      );
      watching = false;
      await watch;

      const went: string[] = [];
      for (const userId of userIds) {
        const entries = await ds.query<
          Array<{ destination: string; status: string; error: string | null; segments: number }>
        >('SELECT destination, status, error, segments FROM sended WHERE id_user = ?', [userId]);
        const sent = entries.filter((entry) => entry.status !== 'failed');
        const refused = entries.filter((entry) => entry.status === 'failed');
        const [quota] = await ds.query<Array<{ consumed: number; reserved: number }>>(
          'SELECT consumed, reserved FROM quota WHERE id_user = ?',
          [userId],
        );
        went.push(...sent.map((entry) => entry.destination));

        expect(new Set(entries.map((entry) => entry.destination)).size).toBe(PER_USER);
        expect({
          spent: sent.reduce((sum, entry) => sum + Number(entry.segments), 0),
          consumed: Number(quota.consumed),
          reserved: Number(quota.reserved),
        }).toEqual({ spent: CREDIT + ADDITIONAL, consumed: CREDIT + ADDITIONAL, reserved: 0 });
        expect(refused.length).toBeGreaterThan(0);
        expect(refused.filter((entry) => !entry.error?.startsWith(QUOTA_SPENT))).toEqual([]);
      }
      // The provider got exactly the entries that went, once each.
      expect(received.sort()).toEqual(went.sort());
      expect(both).toBe(true);
    });
  },
);
