import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { describeEachDatabase } from '../../test/support/databases';
import { makePhone, makeSended } from '../../test/support/factories';
import { apiErrorOf, featureTestingModule, makeCaller } from '../../test/support/testing-module';
import { ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { AppConfig } from '../config/configuration';
import { parseStatsParams } from './stats.params';
import { StatsModule } from './stats.module';
import { StatsService } from './stats.service';

describeEachDatabase('StatsService', (database) => {
  let moduleRef: TestingModule;
  let dataSource: DataSource;
  let stats: StatsService;
  let timeZone: string;

  beforeAll(async () => {
    moduleRef = await featureTestingModule(database(), [StatsModule]);
    dataSource = moduleRef.get(DataSource);
    stats = moduleRef.get(StatsService);
    timeZone = moduleRef.get(AppConfig).timeZone;
  });
  afterAll(async () => {
    await moduleRef?.close();
  });

  const statusStats = (user: AuthenticatedUser, params: Params) =>
    stats.smsStatusStats(user.id, parseStatsParams(params, timeZone));

  it("counts the caller's sent messages per day, phone and status, and no one else's", async () => {
    const user = await makeCaller(dataSource);
    const other = await makeCaller(dataSource);
    const phone = await makePhone(dataSource, user.id);
    const foreignPhone = await makePhone(dataSource, other.id);
    // Noon UTC is the same day in every zone within 11 hours of UTC.
    for (const status of ['delivered', 'delivered', 'failed'] as const) {
      await makeSended(dataSource, user.id, {
        id_phone: phone.id,
        at: '2024-03-10 12:00:00',
        status,
      });
    }
    await makeSended(dataSource, user.id, { id_phone: phone.id, at: '2024-03-20 12:00:00' });
    await makeSended(dataSource, other.id, {
      id_phone: foreignPhone.id,
      at: '2024-03-10 12:00:00',
    });

    const days = await statusStats(user, { start: '2024-03-01', end: '2024-03-15' });

    expect([...days].sort((a, b) => a.status.localeCompare(b.status))).toEqual([
      { at_ymd: '2024-03-10', id_phone: phone.id, status: 'delivered', nb: 2 },
      { at_ymd: '2024-03-10', id_phone: phone.id, status: 'failed', nb: 1 },
    ]);
  });

  it("rule 3: another user's phone is refused as one that does not exist", async () => {
    const user = await makeCaller(dataSource);
    const foreignPhone = await makePhone(dataSource, (await makeCaller(dataSource)).id);

    const error = await apiErrorOf(
      statusStats(user, { start: '2024-03-01', end: '2024-03-15', id_phone: foreignPhone.id }),
    );

    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(
      `id_phone must be the id of one of your phones, got ${foreignPhone.id}`,
    );
  });
});
