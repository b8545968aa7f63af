import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { describeEachDatabase } from '../../test/support/databases';
import { makeContact, makePhone, makeScheduled } from '../../test/support/factories';
import { apiErrorOf, featureTestingModule, makeCaller } from '../../test/support/testing-module';
import { ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { Scheduled, ScheduledContact, ScheduledNumber } from './entities/scheduled.entity';
import { parseIdempotencyKey } from '../idempotency/idempotency.params';
import { parseScheduleParams, parseSendNowParams } from './scheduled.params';
import { ScheduledModule } from './scheduled.module';
import { ScheduledService } from './scheduled.service';

describeEachDatabase('ScheduledService', (database) => {
  let moduleRef: TestingModule;
  let dataSource: DataSource;
  let scheduled: ScheduledService;
  let timeZone: string;

  beforeAll(async () => {
    moduleRef = await featureTestingModule(database(), [ScheduledModule]);
    dataSource = moduleRef.get(DataSource);
    scheduled = moduleRef.get(ScheduledService);
    timeZone = moduleRef.get(AppConfig).timeZone;
  });
  afterAll(async () => {
    await moduleRef?.close();
  });

  const caller = (settings: Record<string, string> = {}) => makeCaller(dataSource, settings);
  // Without an idempotency key, the answer is the new message's id.
  const noKey = parseIdempotencyKey(undefined, {});
  const schedule = async (user: AuthenticatedUser, params: Params) =>
    Number(await scheduled.schedule(user, parseScheduleParams(params, [], '', timeZone), noKey));
  const sendNow = async (user: AuthenticatedUser, params: Params) =>
    Number(await scheduled.sendNow(user, parseSendNowParams(params, ''), noKey));

  describe('schedule (post_scheduled)', () => {
    it('stores the message with its numbers and contacts', async () => {
      const user = await caller();
      const contact = await makeContact(dataSource, user.id);

      const id = await schedule(user, {
        text: 'Hello',
        at: '2030-01-02 03:04:05',
        numbers: ['+33612345678', 'not a number'],
        contacts: [contact.id, contact.id],
      });

      expect(await dataSource.getRepository(Scheduled).findOneBy({ id })).toMatchObject({
        id_user: user.id,
        text: 'Hello',
      });
      const numbers = await dataSource.getRepository(ScheduledNumber).findBy({ id_scheduled: id });
      expect(numbers.map((row) => row.number)).toEqual(['+33612345678']);
      const contacts = await dataSource
        .getRepository(ScheduledContact)
        .findBy({ id_scheduled: id });
      expect(contacts.map((row) => row.id_contact)).toEqual([contact.id]);
    });

    it("rule 5: mms with the user's setting off is refused before the recipients are read", async () => {
      const user = await caller({ mms: '0' });

      const error = await apiErrorOf(schedule(user, { text: 'Hi', mms: '1', contacts: 'x' }));

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(/MMS are disabled in your settings/);
    });

    it("a contact of another user is refused before rule 8's missing recipients", async () => {
      const other = await caller();
      const foreign = await makeContact(dataSource, other.id);

      const error = await apiErrorOf(
        schedule(await caller(), { text: 'Hi', contacts: [foreign.id] }),
      );

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(
        `contacts : ${foreign.id} is not the id of one of your contacts`,
      );
    });

    it('rule 8 before rule 9: no valid recipient wins over id_phone and id_phone_group together', async () => {
      const error = await apiErrorOf(
        schedule(await caller(), {
          text: 'Hi',
          numbers: 'not a number',
          id_phone: '1',
          id_phone_group: '2',
        }),
      );

      expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
      expect(error.message).toMatch(/at least one valid number/);
    });

    it("rule 10: another user's phone is INVALID_PARAMETER, and nothing is stored", async () => {
      const user = await caller();
      const foreign = await makePhone(dataSource, (await caller()).id);

      const error = await apiErrorOf(
        schedule(user, { text: 'Hi', numbers: '+33612345678', id_phone: foreign.id }),
      );

      expect(error.message).toMatch(`id_phone : ${foreign.id} is not the id of one of your phones`);
      expect(await dataSource.getRepository(Scheduled).countBy({ id_user: user.id })).toBe(0);
    });
  });

  describe('sendNow (get_send_sms)', () => {
    it('stores one message due now to the number, on the chosen phone', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id);
      const before = nowUtc();

      const id = await sendNow(user, { to: '+33612345678', text: 'Now', id_phone: phone.id });

      const row = await dataSource.getRepository(Scheduled).findOneByOrFail({ id });
      expect(row).toMatchObject({ id_user: user.id, text: 'Now', id_phone: phone.id });
      expect(row.at >= before && row.at <= nowUtc()).toBe(true);
    });

    it("refuses another user's phone with CANNOT_CREATE", async () => {
      const foreign = await makePhone(dataSource, (await caller()).id);

      const error = await apiErrorOf(
        sendNow(await caller(), { to: '+33612345678', text: 'Now', id_phone: foreign.id }),
      );

      expect(error.code).toBe(ErrorCode.CANNOT_CREATE);
    });
  });

  describe('remove (delete_scheduled)', () => {
    it("deletes the caller's message, and refuses another user's with CANNOT_DELETE", async () => {
      const user = await caller();
      const message = await makeScheduled(dataSource, user.id, {
        numbers: [{ number: '+33612345678' }],
      });

      const error = await apiErrorOf(scheduled.remove((await caller()).id, { id: message.id }));
      expect(error.code).toBe(ErrorCode.CANNOT_DELETE);
      expect(await dataSource.getRepository(Scheduled).countBy({ id: message.id })).toBe(1);

      expect(await scheduled.remove(user.id, { id: message.id })).toBe(true);
      expect(await dataSource.getRepository(Scheduled).countBy({ id: message.id })).toBe(0);
      expect(
        await dataSource.getRepository(ScheduledNumber).countBy({ id_scheduled: message.id }),
      ).toBe(0);
    });
  });
});
