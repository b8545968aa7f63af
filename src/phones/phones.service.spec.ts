import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { describeEachDatabase } from '../../test/support/databases';
import { makePhone, makePhoneLimit, makeSended } from '../../test/support/factories';
import { apiErrorOf, featureTestingModule, makeCaller } from '../../test/support/testing-module';
import { ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { Params } from '../common/params/parse';
import { nowUtc } from '../common/time/datetime';
import { Phone } from './entities/phone.entity';
import { PhoneLimit } from './entities/phone-limit.entity';
import {
  MAX_LIMITS,
  parseCreatePhoneParams,
  parseForceStatusParams,
  parsePhoneIdParams,
  parseUpdatePhoneParams,
} from './phones.params';
import { PhonesModule } from './phones.module';
import { PhonesService } from './phones.service';

const TOO_MANY_LIMITS = Array.from({ length: MAX_LIMITS + 1 }, () => ({
  volume: 1,
  startpoint: 'today',
}));

describeEachDatabase('PhonesService', (database) => {
  let moduleRef: TestingModule;
  let dataSource: DataSource;
  let phones: PhonesService;

  beforeAll(async () => {
    moduleRef = await featureTestingModule(database(), [PhonesModule]);
    dataSource = moduleRef.get(DataSource);
    phones = moduleRef.get(PhonesService);
  });
  afterAll(async () => {
    await moduleRef?.close();
  });

  const caller = (settings: Record<string, string> = {}) => makeCaller(dataSource, settings);

  const create = (user: AuthenticatedUser, params: Params) =>
    phones.create(user, parseCreatePhoneParams(params, phones.adapterIds()));
  const update = (user: AuthenticatedUser, params: Params) =>
    phones.update(user, parseUpdatePhoneParams(params));
  const storedPhone = (id: number) => dataSource.getRepository(Phone).findOneBy({ id });

  describe('create (post_phone)', () => {
    it('stores the phone, available, with its cleaned limits', async () => {
      const user = await caller();

      const id = await create(user, {
        name: 'Office',
        adapter: 'adapters\\TestAdapter',
        priority: '3',
        limits: [{ volume: '5', startpoint: 'today' }, { volume: '2' }],
      });

      expect(await storedPhone(id)).toMatchObject({
        id_user: user.id,
        name: 'Office',
        adapter: 'test',
        priority: 3,
        status: 'available',
      });
      const limits = await dataSource.getRepository(PhoneLimit).findBy({ id_phone: id });
      expect(limits.map(({ volume, startpoint }) => ({ volume, startpoint }))).toEqual([
        { volume: 5, startpoint: 'today' },
      ]);
    });

    it('stores the rate sent, and none without one', async () => {
      const user = await caller();

      const paced = await create(user, { name: 'Paced', adapter: 'test', rate: '0.5' });
      const unpaced = await create(user, { name: 'Unpaced', adapter: 'test' });

      expect(await storedPhone(paced)).toMatchObject({ rate: 0.5, pace_next_ms: null });
      expect(await storedPhone(unpaced)).toMatchObject({ rate: null, pace_next_ms: null });
    });

    it('rule 2 before rule 3: a name already used wins over too many limits', async () => {
      const user = await caller();
      await makePhone(dataSource, user.id, { name: 'Office' });

      const error = await apiErrorOf(
        create(user, { name: 'Office', adapter: 'test', limits: TOO_MANY_LIMITS }),
      );

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(/name "Office" is already used by another of your phones/);
    });

    it("another user's phone of the same name does not take the name", async () => {
      const other = await caller();
      await makePhone(dataSource, other.id, { name: 'Shared name' });

      expect(await create(await caller(), { name: 'Shared name', adapter: 'test' })).toEqual(
        expect.any(Number),
      );
    });

    it('rule 3 before rule 4: too many limits wins over an unknown adapter', async () => {
      const error = await apiErrorOf(
        create(await caller(), { name: 'Office', adapter: 'nope', limits: TOO_MANY_LIMITS }),
      );

      expect(error.message).toMatch(/at most 100 limits/);
    });

    it('rule 4: an unknown adapter is INVALID_PARAMETER listing the adapters', async () => {
      const error = await apiErrorOf(create(await caller(), { name: 'Office', adapter: 'nope' }));

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(/adapter "nope" does not exist; use one of test, /);
    });

    it("rule 5: a required field missing is MISSING_PARAMETER before the provider's test", async () => {
      const error = await apiErrorOf(create(await caller(), { name: 'Office', adapter: 'twilio' }));

      expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
      expect(error.message).toMatch(/adapter_data\[account_sid\]/);
    });

    it("rule 7: the adapter's test refusing the data is CANNOT_CREATE, and nothing is stored", async () => {
      const user = await caller();

      const error = await apiErrorOf(
        create(user, { name: 'Refused', adapter: 'test', adapter_data: { delivery: 'lost' } }),
      );

      expect(error.code).toBe(ErrorCode.CANNOT_CREATE);
      expect(error.message).toMatch(/The test adapter refused adapter_data: delivery must be/);
      expect(await dataSource.getRepository(Phone).findOneBy({ id_user: user.id })).toBeNull();
    });
  });

  describe('update (post_update_phone)', () => {
    it("rule 1 before rule 2: another user's phone is CANNOT_UPDATE, whatever the changes", async () => {
      const other = await caller();
      const phone = await makePhone(dataSource, other.id);

      for (const params of [{ id: phone.id }, { id: phone.id, name: ['not', 'a text'] }]) {
        const error = await apiErrorOf(update(await caller(), params));
        expect(error.code).toBe(ErrorCode.CANNOT_UPDATE);
        expect(error.message).toMatch(`you have no phone ${phone.id}`);
      }
    });

    it('rule 2: nothing to change on an own phone is MISSING_PARAMETER', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id);

      const error = await apiErrorOf(update(user, { id: phone.id }));

      expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
    });

    it('rule 3 before rule 4: a name used by another phone wins over too many limits', async () => {
      const user = await caller();
      await makePhone(dataSource, user.id, { name: 'Taken' });
      const phone = await makePhone(dataSource, user.id);

      const error = await apiErrorOf(
        update(user, { id: phone.id, name: 'Taken', limits: TOO_MANY_LIMITS }),
      );

      expect(error.message).toMatch(/name "Taken" is already used/);
    });

    it('a new rate frees the next sending slot; an update without one keeps rate and slot', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id, { rate: 2, pace_next_ms: '1000' });
      const pacing = async () => {
        const stored = await storedPhone(phone.id);
        return { rate: stored?.rate, slot: stored?.pace_next_ms && String(stored.pace_next_ms) };
      };

      expect(await update(user, { id: phone.id, priority: '4' })).toBe(true);
      expect(await pacing()).toEqual({ rate: 2, slot: '1000' });

      expect(await update(user, { id: phone.id, rate: 12.25 })).toBe(true);
      expect(await pacing()).toEqual({ rate: 12.25, slot: null });
    });

    it('rule 3: a name taken refuses the update before the rate or the slot changes', async () => {
      const user = await caller();
      await makePhone(dataSource, user.id, { name: 'Taken' });
      const phone = await makePhone(dataSource, user.id, { rate: 2, pace_next_ms: '1000' });

      const error = await apiErrorOf(update(user, { id: phone.id, name: 'Taken', rate: '1' }));

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      const stored = await storedPhone(phone.id);
      expect({ rate: stored?.rate, slot: String(stored?.pace_next_ms) }).toEqual({
        rate: 2,
        slot: '1000',
      });
    });

    it('keeps its own name, changes what was sent and replaces the limits', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id, { name: 'Mine', priority: 1 });
      await makePhoneLimit(dataSource, phone.id, { volume: 9 });

      expect(await update(user, { id: phone.id, name: 'Mine', limits: '' })).toBe(true);

      expect(await storedPhone(phone.id)).toMatchObject({ name: 'Mine', priority: 1 });
      expect(await dataSource.getRepository(PhoneLimit).countBy({ id_phone: phone.id })).toBe(0);
    });
  });

  describe('checkStatus (post_update_phone_status)', () => {
    const checkStatus = (user: AuthenticatedUser, id: number) =>
      phones.checkStatus(user, parsePhoneIdParams({ id }));

    it('stores and answers what the adapter reports', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id, {
        adapter_data: JSON.stringify({ phone_status: 'no_credit' }),
      });

      expect(await checkStatus(user, phone.id)).toBe('no_credit');
      expect((await storedPhone(phone.id))?.status).toBe('no_credit');
    });

    it('rule 2: a disabled phone stays so, CANNOT_UPDATE', async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id, { status: 'disabled' });

      const error = await apiErrorOf(checkStatus(user, phone.id));

      expect(error.code).toBe(ErrorCode.CANNOT_UPDATE);
      expect((await storedPhone(phone.id))?.status).toBe('disabled');
    });

    it('rule 3: with phone_limit on, a used-up limit is limit_reached; off, it is not', async () => {
      const limited = await caller({ phone_limit: '1' });
      const phone = await makePhone(dataSource, limited.id);
      await makePhoneLimit(dataSource, phone.id, { volume: 1, startpoint: '-1 hour' });
      await makeSended(dataSource, limited.id, { id_phone: phone.id, at: nowUtc() });

      expect(await checkStatus(limited, phone.id)).toBe('limit_reached');

      const unlimited = await caller({ phone_limit: '0' });
      const other = await makePhone(dataSource, unlimited.id);
      await makePhoneLimit(dataSource, other.id, { volume: 1, startpoint: '-1 hour' });
      await makeSended(dataSource, unlimited.id, { id_phone: other.id, at: nowUtc() });

      expect(await checkStatus(unlimited, other.id)).toBe('available');
    });
  });

  describe('forceStatus and delete', () => {
    it("sets the caller's phone disabled, and refuses another user's with CANNOT_UPDATE", async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id);
      const force = (who: AuthenticatedUser) =>
        phones.forceStatus(who, parseForceStatusParams({ id: phone.id, status: 'disabled' }));

      expect((await apiErrorOf(force(await caller()))).code).toBe(ErrorCode.CANNOT_UPDATE);
      expect((await storedPhone(phone.id))?.status).toBe('available');

      expect(await force(user)).toBe('disabled');
      expect((await storedPhone(phone.id))?.status).toBe('disabled');
    });

    it("deletes the caller's phone, and refuses another user's with CANNOT_DELETE", async () => {
      const user = await caller();
      const phone = await makePhone(dataSource, user.id);
      const remove = (who: AuthenticatedUser) =>
        phones.delete(who, parsePhoneIdParams({ id: phone.id }));

      expect((await apiErrorOf(remove(await caller()))).code).toBe(ErrorCode.CANNOT_DELETE);
      expect(await storedPhone(phone.id)).not.toBeNull();

      expect(await remove(user)).toBe(true);
      expect(await storedPhone(phone.id)).toBeNull();
    });
  });
});
