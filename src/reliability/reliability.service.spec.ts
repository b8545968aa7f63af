import { Logger } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { describeEachDatabase } from '../../test/support/databases';
import { makePhone, makeUser } from '../../test/support/factories';
import { featureTestingModule } from '../../test/support/testing-module';
import { Phone } from '../phones/entities/phone.entity';
import { Setting } from '../users/entities/setting.entity';
import { ReliabilityModule } from './reliability.module';
import { utcString } from '../common/time/datetime';
import { ReliabilityAlert, ReliabilityService } from './reliability.service';

/*
 * The phone reliability check (docs/dispatch.md#phone-reliability) on real databases: sent
 * entries are written at chosen times and the check is run with the test's clock, never waited
 * for. The defaults hold unless a test says otherwise: failed checked at 10 % of at least 25
 * sends over 120 minutes, the last minute left out; unknown not checked.
 */

const NOW = new Date('2025-03-01T12:00:00Z');
const minutes = (n: number) => new Date(NOW.getTime() + n * 60_000);
/** A stored datetime `n` minutes before NOW. */
const ago = (n: number) => utcString(minutes(-n));

type Status = 'failed' | 'unknown' | 'delivered';

/** `counts` of each status, as one list. */
const mix = (counts: Partial<Record<Status, number>>): Status[] =>
  (Object.entries(counts) as Array<[Status, number]>).flatMap(([status, n]) =>
    Array<Status>(n).fill(status),
  );

describeEachDatabase('phone reliability check', (database) => {
  let moduleRef: TestingModule;
  let ds: DataSource;
  let service: ReliabilityService;
  let warnings: string[];

  beforeAll(async () => {
    moduleRef = await featureTestingModule(database(), [ReliabilityModule]);
    ds = moduleRef.get(DataSource);
    service = moduleRef.get(ReliabilityService);
  });
  afterAll(async () => {
    await moduleRef?.close();
  });
  beforeEach(() => {
    warnings = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** Sent entries of the user's phone, all at `at`, one per status given. */
  const sent = async (userId: number, phoneId: number, statuses: Status[], at: string) => {
    const values = statuses.map(() => "(?, ?, ?, 'Hello', '+33612345678', 0, 0, ?, 'test', ?)");
    await ds.query(
      'INSERT INTO sended (id_user, id_phone, at, text, destination, flash, mms, status, ' +
        `adapter, created_at) VALUES ${values.join(', ')}`,
      statuses.flatMap((status) => [userId, phoneId, at, status, at]),
    );
  };

  /** A user with one phone, settings over the defaults. */
  const userWithPhone = async (settings: Record<string, string> = {}) => {
    const { user } = await makeUser(ds, { settings });
    const phone = await makePhone(ds, user.id);
    return { userId: user.id, phoneId: phone.id };
  };

  const webhookFor = (userId: number, type = 'phone_reliability', enabled = 1) =>
    ds.query(
      'INSERT INTO webhook (id_user, url, type, format, secret, enabled, created_at) ' +
        "VALUES (?, 'https://hooks.example.test/sms', ?, 'raspisms', ?, ?, ?)",
      [userId, type, 'a'.repeat(32), enabled, ago(600)],
    );

  /** The alerts of the check at `now` for one user (other tests' users may be alerted too). */
  const check = async (userId: number, now = NOW): Promise<ReliabilityAlert[]> =>
    (await service.check(now)).filter((alert) => alert.userId === userId);

  const history = async (phoneId: number) =>
    (
      await ds.query<
        Array<{ id_user: number; id_phone: number; type: string; created_at: string }>
      >(
        'SELECT id_user, id_phone, type, created_at FROM phone_reliability_history ' +
          'WHERE id_phone = ? ORDER BY id',
        [phoneId],
      )
    ).map((row) => ({
      id_user: Number(row.id_user),
      id_phone: Number(row.id_phone),
      type: row.type,
      created_at: String(row.created_at).slice(0, 19),
    }));

  const deliveries = async (userId: number) =>
    (
      await ds.query<
        Array<{
          id_webhook: number;
          event_type: string;
          status: string;
          payload: string;
          event_at: string;
        }>
      >(
        'SELECT id_webhook, event_type, status, payload, event_at FROM webhook_delivery ' +
          'WHERE id_user = ? ORDER BY id',
        [userId],
      )
    ).map((row) => ({
      ...row,
      id_webhook: Number(row.id_webhook),
      payload: JSON.parse(row.payload) as unknown,
      event_at: String(row.event_at).slice(0, 19),
    }));

  const phoneStatus = async (phoneId: number) =>
    (await ds.getRepository(Phone).findOneByOrFail({ id: phoneId })).status;

  describe('failed rates', () => {
    it('raises no alert below the rate limit, and one at it, recorded with the time of the check', async () => {
      const below = await userWithPhone({ phone_reliability_failed_volume: '20' });
      const at = await userWithPhone({ phone_reliability_failed_volume: '20' });
      await sent(below.userId, below.phoneId, mix({ failed: 1, delivered: 19 }), ago(30));
      await sent(at.userId, at.phoneId, mix({ failed: 2, delivered: 18 }), ago(30));

      const alerts = await service.check(NOW);

      expect(alerts.filter((alert) => alert.userId === below.userId)).toEqual([]);
      expect(await history(below.phoneId)).toEqual([]);
      expect(alerts.filter((alert) => alert.userId === at.userId)).toEqual([
        {
          userId: at.userId,
          phoneId: at.phoneId,
          type: 'failed',
          total: 20,
          unreliable: 2,
          rate: 0.1,
          deliveries: 0,
          disabled: false,
        },
      ]);
      expect(await history(at.phoneId)).toEqual([
        { id_user: at.userId, id_phone: at.phoneId, type: 'failed', created_at: utcString(NOW) },
      ]);
      expect(await phoneStatus(at.phoneId)).toBe('available');
    });

    it('judges no rate below the volume, and alerts once the volume is reached', async () => {
      const { userId, phoneId } = await userWithPhone();
      await sent(userId, phoneId, mix({ failed: 24 }), ago(30));

      expect(await check(userId)).toEqual([]);

      await sent(userId, phoneId, mix({ delivered: 1 }), ago(20));
      expect(await check(userId)).toMatchObject([
        { phoneId, total: 25, unreliable: 24, rate: 0.96 },
      ]);
    });

    it('counts unknown entries in the total but not as failed', async () => {
      const { userId, phoneId } = await userWithPhone();
      await sent(userId, phoneId, mix({ failed: 2, unknown: 23 }), ago(30));

      expect(await check(userId)).toEqual([]);

      await sent(userId, phoneId, mix({ failed: 1 }), ago(29));
      expect(await check(userId)).toMatchObject([{ total: 26, unreliable: 3, rate: 0.1154 }]);
    });

    it("counts a phone's refusals after which the recipient went through another phone as failed sends", async () => {
      const { userId, phoneId } = await userWithPhone({ phone_reliability_failed_volume: '20' });
      await sent(userId, phoneId, mix({ delivered: 18 }), ago(30));
      await ds.query(
        'INSERT INTO send_refusal (id_user, id_phone, at) VALUES (?, ?, ?), (?, ?, ?)',
        [userId, phoneId, ago(30), userId, phoneId, ago(25)],
      );

      expect(await check(userId)).toMatchObject([
        { phoneId, type: 'failed', total: 20, unreliable: 2, rate: 0.1 },
      ]);
    });

    it('raises nothing when phone_reliability_failed is off', async () => {
      const { userId, phoneId } = await userWithPhone({ phone_reliability_failed: '0' });
      await sent(userId, phoneId, mix({ failed: 30 }), ago(30));

      expect(await check(userId)).toEqual([]);
      expect(await history(phoneId)).toEqual([]);
    });

    it('takes the defaults for the settings a user has no row for', async () => {
      const { userId, phoneId } = await userWithPhone();
      await ds
        .createQueryBuilder()
        .delete()
        .from(Setting)
        .where("id_user = :userId AND name LIKE 'phone%'", { userId })
        .execute();
      await sent(userId, phoneId, mix({ failed: 3, delivered: 22 }), ago(30));

      expect(await check(userId)).toMatchObject([{ type: 'failed', total: 25, unreliable: 3 }]);
    });
  });

  describe('unknown rates', () => {
    it('are not checked by default', async () => {
      const { userId, phoneId } = await userWithPhone();
      await sent(userId, phoneId, mix({ unknown: 30 }), ago(30));

      expect(await check(userId)).toEqual([]);
    });

    it('alert at their own limit once turned on, failed entries counting in the total only', async () => {
      const { userId, phoneId } = await userWithPhone({
        phone_reliability_unknown: '1',
        phone_reliability_unknown_volume: '8',
      });
      await sent(userId, phoneId, mix({ unknown: 1, failed: 6 }), ago(30));
      await sent(userId, phoneId, mix({ delivered: 1 }), ago(30));

      expect(await check(userId)).toEqual([]);

      await sent(userId, phoneId, mix({ unknown: 2 }), ago(20));
      expect(await check(userId)).toMatchObject([
        { type: 'unknown', total: 10, unreliable: 3, rate: 0.3 },
      ]);
      expect((await history(phoneId)).map((row) => row.type)).toEqual(['unknown']);
    });

    it('keep a window apart from the failed one: each type restarts its own', async () => {
      const { userId, phoneId } = await userWithPhone({ phone_reliability_unknown: '1' });
      await sent(userId, phoneId, mix({ unknown: 10, failed: 15 }), ago(30));

      const first = await check(userId);
      expect(first.map((alert) => alert.type).sort()).toEqual(['failed', 'unknown']);

      expect(await check(userId, minutes(15))).toEqual([]);
      expect((await history(phoneId)).map((row) => row.type).sort()).toEqual(['failed', 'unknown']);
    });
  });

  describe('the window', () => {
    it('restarts with an alert: the same entries never alert twice, new failures do', async () => {
      const { userId, phoneId } = await userWithPhone();
      await sent(userId, phoneId, mix({ failed: 5, delivered: 20 }), ago(60));

      expect(await check(userId)).toHaveLength(1);
      expect(await check(userId, minutes(15))).toEqual([]);
      expect(await check(userId, minutes(30))).toEqual([]);

      // Sent after the alert, but fewer than the volume: the old entries no longer count.
      await sent(userId, phoneId, mix({ failed: 10 }), utcString(minutes(31)));
      expect(await check(userId, minutes(45))).toEqual([]);

      await sent(userId, phoneId, mix({ failed: 5, delivered: 10 }), utcString(minutes(40)));
      expect(await check(userId, minutes(60))).toMatchObject([
        { total: 25, unreliable: 15, rate: 0.6 },
      ]);
      expect((await history(phoneId)).map((row) => row.created_at)).toEqual([
        utcString(NOW),
        utcString(minutes(60)),
      ]);
    });

    it('leaves out the entries of the grace period until it is over', async () => {
      const { userId, phoneId } = await userWithPhone({
        phone_reliability_failed_grace_period: '5',
      });
      await sent(userId, phoneId, mix({ failed: 25 }), ago(3));

      expect(await check(userId)).toEqual([]);
      expect(await check(userId, minutes(1))).toEqual([]);
      expect(await check(userId, minutes(2))).toMatchObject([{ total: 25, unreliable: 25 }]);
    });

    it('leaves out the entries older than the period', async () => {
      const { userId, phoneId } = await userWithPhone({ phone_reliability_failed_period: '60' });
      await sent(userId, phoneId, mix({ failed: 20 }), ago(61));
      await sent(userId, phoneId, mix({ delivered: 5 }), ago(59));

      expect(await check(userId)).toEqual([]);
      expect(await check(userId, minutes(-2))).toMatchObject([{ total: 25, unreliable: 20 }]);
    });

    it('takes each phone of a user by itself', async () => {
      const { userId, phoneId } = await userWithPhone();
      const other = await makePhone(ds, userId);
      await sent(userId, phoneId, mix({ failed: 3, delivered: 22 }), ago(30));
      await sent(userId, other.id, mix({ delivered: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ phoneId }]);
      expect(await history(other.id)).toEqual([]);
    });
  });

  describe('the webhook', () => {
    it('queues a phone_reliability event for each of the user’s webhooks of that type, in the alert’s transaction', async () => {
      const { userId, phoneId } = await userWithPhone();
      await webhookFor(userId);
      await webhookFor(userId, 'send_sms');
      await webhookFor(userId, 'phone_reliability', 0);
      const [hook] = await ds.query<Array<{ id: number }>>(
        "SELECT id FROM webhook WHERE id_user = ? AND type = 'phone_reliability' AND enabled = 1",
        [userId],
      );
      await sent(userId, phoneId, mix({ failed: 1, delivered: 2 }), ago(30));
      await sent(userId, phoneId, mix({ failed: 3, delivered: 22 }), ago(20));

      expect(await check(userId)).toMatchObject([{ deliveries: 1 }]);

      expect(await deliveries(userId)).toEqual([
        {
          id_webhook: Number(hook.id),
          event_type: 'phone_reliability',
          status: 'pending',
          event_at: utcString(NOW),
          payload: {
            reliability_type: 'failed',
            id_phone: phoneId,
            period: 120,
            total: 28,
            unreliable: 4,
            rate: 0.1429,
          },
        },
      ]);
    });

    it('queues nothing for a user without such a webhook, the alert still recorded', async () => {
      const { userId, phoneId } = await userWithPhone();
      await webhookFor(userId, 'receive_sms');
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ deliveries: 0 }]);
      expect(await deliveries(userId)).toEqual([]);
      expect(await history(phoneId)).toHaveLength(1);
    });

    it('queues nothing when phone_reliability_failed_webhook is off', async () => {
      const { userId, phoneId } = await userWithPhone({ phone_reliability_failed_webhook: '0' });
      await webhookFor(userId);
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ deliveries: 0 }]);
      expect(await deliveries(userId)).toEqual([]);
      expect(await history(phoneId)).toHaveLength(1);
    });

    it('queues nothing when the setting webhook is off', async () => {
      const { userId, phoneId } = await userWithPhone({ webhook: '0' });
      await webhookFor(userId);
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ deliveries: 0 }]);
      expect(await deliveries(userId)).toEqual([]);
    });
  });

  describe('auto-disable', () => {
    it('disables the phone with the alert when phone_reliability_failed_auto_disable is on', async () => {
      const { userId, phoneId } = await userWithPhone({
        phone_reliability_failed_auto_disable: '1',
      });
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ phoneId, disabled: true }]);
      expect(await phoneStatus(phoneId)).toBe('disabled');
      expect(warnings.join('\n')).toContain(
        `Phone ${phoneId} of user ${userId} is unreliable: 25 of its 25 messages sent over the ` +
          "last 120 minutes are failed (100.00 %, the user's limit is 10 %); the phone is now disabled.",
      );
    });

    it('leaves the phone as it is when auto-disable is off', async () => {
      const { userId, phoneId } = await userWithPhone();
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ disabled: false }]);
      expect(await phoneStatus(phoneId)).toBe('available');
    });

    it('skips disabled phones: no alert, no event', async () => {
      const { userId, phoneId } = await userWithPhone();
      await webhookFor(userId);
      await ds.getRepository(Phone).update({ id: phoneId }, { status: 'disabled' });
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toEqual([]);
      expect(await history(phoneId)).toEqual([]);
      expect(await deliveries(userId)).toEqual([]);
    });

    it('checks a phone that is unavailable or out of credit, only disabled ones being skipped', async () => {
      const { userId, phoneId } = await userWithPhone();
      await ds.getRepository(Phone).update({ id: phoneId }, { status: 'no_credit' });
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toMatchObject([{ phoneId }]);
    });
  });

  describe('users', () => {
    it('judges each user by their own entries and settings', async () => {
      const strict = await userWithPhone({ phone_reliability_failed_rate_limit: '5' });
      const lenient = await userWithPhone({ phone_reliability_failed_rate_limit: '50' });
      await webhookFor(lenient.userId);
      await sent(strict.userId, strict.phoneId, mix({ failed: 2, delivered: 23 }), ago(30));
      await sent(lenient.userId, lenient.phoneId, mix({ failed: 2, delivered: 23 }), ago(30));

      const alerts = await service.check(NOW);

      expect(alerts.filter((alert) => alert.userId === strict.userId)).toHaveLength(1);
      expect(alerts.filter((alert) => alert.userId === lenient.userId)).toEqual([]);
      expect(await history(lenient.phoneId)).toEqual([]);
      expect(await deliveries(lenient.userId)).toEqual([]);
    });

    it('does not count entries of a phone that another user sent through it', async () => {
      const owner = await userWithPhone();
      const { user: other } = await makeUser(ds);
      await sent(other.id, owner.phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(owner.userId)).toEqual([]);
      expect(await check(other.id)).toEqual([]);
    });

    it('skips suspended users', async () => {
      const { userId, phoneId } = await userWithPhone();
      await ds.query("UPDATE user SET status = 'suspended' WHERE id = ?", [userId]);
      await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

      expect(await check(userId)).toEqual([]);
    });
  });

  it('stops between users once told to', async () => {
    const { userId, phoneId } = await userWithPhone();
    await sent(userId, phoneId, mix({ failed: 25 }), ago(30));

    expect(await service.check(NOW, () => false)).toEqual([]);
    expect(await history(phoneId)).toEqual([]);
  });
});
