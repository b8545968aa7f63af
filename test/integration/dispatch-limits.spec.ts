import { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { ExpansionService } from '../../src/dispatch/expansion.service';
import { SenderService } from '../../src/dispatch/sender.service';
import { testConfig } from '../support/app';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { makePhone, makePhoneLimit, makeScheduled, makeUser } from '../support/factories';

/*
 * Limits hold across workers (issue 4, point 4): two workers on one MariaDB, each with its own
 * connections, claim at the same moment the last unit of a phone's limit; one sends, the other
 * records the limit. (SQLite runs a single worker.)
 */
const ROUNDS = 10;

(DATABASE_KINDS.includes('mariadb') ? describe : describe.skip)(
  'phone limits across workers [mariadb]',
  () => {
    let database: TestDatabase;
    let apps: NestExpressApplication[];

    beforeAll(async () => {
      database = await createTestDatabase('mariadb');
      const env = { WORKER: 'off', DISPATCH_BATCH_SIZE: '1' };
      apps = [
        await createApp(testConfig(database, env)),
        await createApp(testConfig(database, env)),
      ];
    });
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.close()));
      await database.drop();
    });

    it('two workers claiming together never both spend the last unit of a limit', async () => {
      const ds = apps[0].get(DataSource);
      const [first, second] = apps.map((app) => app.get(SenderService));
      for (let round = 0; round < ROUNDS; round++) {
        const { user } = await makeUser(ds, { settings: { phone_limit: '1' } });
        const phone = await makePhone(ds, user.id);
        await makePhoneLimit(ds, phone.id, { volume: 1, startpoint: 'today' });
        await makeScheduled(ds, user.id, {
          numbers: [{ number: '+33612345671' }, { number: '+33612345672' }],
        });
        await apps[0].get(ExpansionService).expandNext();

        await Promise.all([first.sendBatches('worker-a', 1), second.sendBatches('worker-b', 1)]);

        const entries = await ds.query<Array<{ status: string; error: string | null }>>(
          'SELECT status, error FROM sended WHERE id_user = ? ORDER BY status',
          [user.id],
        );
        expect({ round, entries }).toEqual({
          round,
          entries: [
            { status: 'failed', error: 'The phone has reached its sending limit.' },
            { status: 'unknown', error: null },
          ],
        });
      }
    });
  },
);
