import { Injectable } from '@nestjs/common';
import { generateCallbackToken } from '../common/auth/api-key';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { PhoneStatus } from '../adapters/adapter';
import { nowUtc } from '../common/time/datetime';
import { runOn } from '../database/driver/runner';
import { Sql, write } from '../database/driver/sql';
import { Sended } from '../sended/entities/sended.entity';
import { PhoneLimit } from './entities/phone-limit.entity';
import { Phone } from './entities/phone.entity';

export type NewPhone = Pick<Phone, 'name' | 'adapter' | 'priority' | 'rate'>;
export type PhoneChanges = Partial<NewPhone & Pick<Phone, 'adapter_data'>>;
export type LimitWindow = Pick<PhoneLimit, 'volume' | 'startpoint'>;

/**
 * Phones and their limits, through TypeORM; the pacing reset, which writes the dispatch's
 * outbox, as driver SQL run in the change's transaction (docs/architecture.md). Every query is
 * scoped by the owner's id.
 */
@Injectable()
export class PhonesRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Phone) private readonly phones: Repository<Phone>,
    @InjectRepository(PhoneLimit) private readonly limits: Repository<PhoneLimit>,
  ) {}

  /** Gives the user's phone a new callback token; false when it is not theirs. */
  async setCallbackToken(userId: number, phoneId: number, token: string): Promise<boolean> {
    const result = await this.phones.update(
      { id: phoneId, id_user: userId },
      { callback_token: token, updated_at: nowUtc() },
    );
    return (result.affected ?? 0) > 0;
  }

  findOwned(userId: number, phoneId: number): Promise<Phone | null> {
    return this.phones.findOneBy({ id: phoneId, id_user: userId });
  }

  /** Whether another phone of the user has this name. Served by the unique `(id_user, name)`. */
  async isNameTaken(userId: number, name: string, exceptPhoneId?: number): Promise<boolean> {
    const query = this.phones
      .createQueryBuilder('p')
      .select('p.id', 'id')
      .where('p.id_user = :userId', { userId })
      .andWhere('p.name = :name', { name });
    if (exceptPhoneId !== undefined) {
      query.andWhere('p.id <> :exceptPhoneId', { exceptPhoneId });
    }
    return (await query.limit(1).getRawOne()) !== undefined;
  }

  /**
   * Inserts a phone (status `available`) and its limits in one transaction; returns its id.
   * Its `adapter_data` is written once its id is known, since the encryption of its secrets is
   * bound to it.
   */
  create(
    userId: number,
    phone: NewPhone,
    adapterData: (phoneId: number) => string,
    limits: readonly LimitWindow[],
  ): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const now = nowUtc();
      const phones = manager.getRepository(Phone);
      const saved = await phones.save(
        Object.assign(new Phone(), phone, {
          id_user: userId,
          adapter_data: null,
          status: 'available',
          callback_token: generateCallbackToken(),
          created_at: now,
          updated_at: null,
        }),
      );
      await phones.update({ id: saved.id }, { adapter_data: adapterData(saved.id) });
      await this.insertLimits(manager, saved.id, limits, now);
      return saved.id;
    });
  }

  /**
   * Updates a phone of the user and, when `limits` is given, replaces its limits, in one
   * transaction; a new rate resets the phone's pacing (resetPacing). False when the phone is no
   * longer there.
   */
  update(
    userId: number,
    phoneId: number,
    changes: PhoneChanges,
    limits: readonly LimitWindow[] | undefined,
  ): Promise<boolean> {
    return this.transaction(async (manager) => {
      const stored = await this.storedPhone(manager, userId, phoneId);
      if (!stored) {
        return false;
      }
      if (changes.rate !== undefined && changes.rate !== stored.rate) {
        await runOn(manager, resetPacing(phoneId));
      }
      const now = nowUtc();
      const result = await manager
        .getRepository(Phone)
        .update({ id: phoneId, id_user: userId }, { ...changes, updated_at: now });
      if (!result.affected) {
        return false;
      }
      if (limits !== undefined) {
        await manager.getRepository(PhoneLimit).delete({ id_phone: phoneId });
        await this.insertLimits(manager, phoneId, limits, now);
      }
      return true;
    });
  }

  /**
   * Deletes a phone of the user, and resets its pacing (resetPacing). The schema's foreign keys
   * delete its limits and phone-group memberships and set `id_phone` to NULL on its sent,
   * received and scheduled messages.
   */
  deleteOwned(userId: number, phoneId: number): Promise<boolean> {
    return this.transaction(async (manager) => {
      if (!(await this.storedPhone(manager, userId, phoneId))) {
        return false;
      }
      await runOn(manager, resetPacing(phoneId));
      const result = await manager.getRepository(Phone).delete({ id: phoneId, id_user: userId });
      return Boolean(result.affected);
    });
  }

  /**
   * Stores a status the phone's checks found; a status other than the stored one resets the
   * phone's pacing (resetPacing). Unless `overrideDisabled`, a phone disabled meanwhile stays
   * disabled. False when no phone of the user was changed.
   */
  storeStatus(
    userId: number,
    phoneId: number,
    status: PhoneStatus,
    overrideDisabled: boolean,
  ): Promise<boolean> {
    return this.transaction(async (manager) => {
      const stored = await this.storedPhone(manager, userId, phoneId);
      if (!stored || (stored.status === 'disabled' && !overrideDisabled)) {
        return false;
      }
      if (stored.status !== status) {
        await runOn(manager, resetPacing(phoneId));
      }
      const query = manager
        .createQueryBuilder()
        .update(Phone)
        .set({ status, updated_at: nowUtc() })
        .where('id = :phoneId', { phoneId })
        .andWhere('id_user = :userId', { userId });
      if (!overrideDisabled) {
        query.andWhere('status <> :disabled', { disabled: 'disabled' });
      }
      return Boolean((await query.execute()).affected);
    });
  }

  /** The limits of a phone of the user, in creation order. */
  limitsOf(userId: number, phoneId: number): Promise<PhoneLimit[]> {
    return this.limits
      .createQueryBuilder('l')
      .innerJoin(Phone, 'p', 'p.id = l.id_phone')
      .where('p.id_user = :userId', { userId })
      .andWhere('l.id_phone = :phoneId', { phoneId })
      .orderBy('l.id', 'ASC')
      .getMany();
  }

  /**
   * The user's `sended` rows of this phone, any status, sent since each of `starts` (UTC), by
   * start. One query for all of them, served by `(id_user, id_phone, at)`.
   */
  async countSentSince(
    userId: number,
    phoneId: number,
    starts: readonly string[],
  ): Promise<Map<string, number>> {
    const sorted = [...new Set(starts)].sort();
    if (sorted.length === 0) {
      return new Map();
    }
    const query = this.dataSource.createQueryBuilder().from(Sended, 's');
    sorted.forEach((since, index) => {
      const count = `COUNT(CASE WHEN s.at >= :since${index} THEN 1 END)`;
      if (index === 0) {
        query.select(count, `c${index}`);
      } else {
        query.addSelect(count, `c${index}`);
      }
      query.setParameter(`since${index}`, since);
    });
    const row = await query
      .where('s.id_user = :userId', { userId })
      .andWhere('s.id_phone = :phoneId', { phoneId })
      .andWhere('s.at >= :earliest', { earliest: sorted[0] })
      .getRawOne<Record<string, number | string>>();
    return new Map(sorted.map((since, index) => [since, Number(row?.[`c${index}`])]));
  }

  /**
   * The phone's rate and status, read without a lock: locking the phone's row before the
   * outbox's would take them in the order opposite to the dispatch's (resetPacing).
   */
  private storedPhone(
    manager: EntityManager,
    userId: number,
    phoneId: number,
  ): Promise<Pick<Phone, 'rate' | 'status'> | null> {
    return manager.getRepository(Phone).findOne({
      select: { rate: true, status: true },
      where: { id: phoneId, id_user: userId },
    });
  }

  /** READ COMMITTED on MySQL: no gap locks on the outbox rows resetPacing looks through. */
  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.options.type === 'mysql'
      ? this.dataSource.transaction('READ COMMITTED', work)
      : this.dataSource.transaction(work);
  }

  private async insertLimits(
    manager: EntityManager,
    phoneId: number,
    limits: readonly LimitWindow[],
    now: string,
  ): Promise<void> {
    if (limits.length === 0) {
      return;
    }
    await manager.getRepository(PhoneLimit).insert(
      limits.map((limit) =>
        Object.assign(new PhoneLimit(), {
          id_phone: phoneId,
          volume: limit.volume,
          startpoint: limit.startpoint,
          created_at: now,
          updated_at: null,
        }),
      ),
    );
  }
}

/**
 * Puts the phone's booked rows back in the queue and frees its next sending slot
 * (docs/dispatch.md#pacing), in the transaction of the change that calls for it. Rows booked on
 * a paced phone wait for their slot with `next_attempt_at` ahead; once the phone's rate or
 * status changes, or it is deleted, those slots no longer hold, so the rows are due now and
 * are routed again. Rows being sent keep their phone.
 *
 * The outbox goes first, as in the dispatch's claims (its rows, then their phones): a claim
 * holding one of these rows while it waits for the phone's row would otherwise deadlock with
 * this transaction.
 */
function* resetPacing(phoneId: number): Sql<void> {
  const now = nowUtc();
  yield* write(
    'UPDATE outbox SET via_phone = NULL, pace_slot = NULL, next_attempt_at = ?, updated_at = ? ' +
      "WHERE via_phone = ? AND state = 'queued'",
    [now, now, phoneId],
  );
  yield* write('UPDATE phone SET pace_next_ms = NULL WHERE id = ?', [phoneId]);
}
