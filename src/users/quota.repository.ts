import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { Quota } from './entities/quota.entity';
import { QuotaState, quotaState } from './quota';

/** What `quota set` decides; the rest of the row is the dispatch's. */
export type QuotaSettings = Pick<
  QuotaState,
  | 'credit'
  | 'additional'
  | 'start_date'
  | 'expiration_date'
  | 'renew_interval'
  | 'auto_renew'
  | 'report_unused'
  | 'report_unused_additional'
>;

/** The quotas as the CLI and the account read and write them, one per user. */
@Injectable()
export class QuotaRepository {
  constructor(@InjectRepository(Quota) private readonly quotas: Repository<Quota>) {}

  /** For what runs outside Nest's container (the CLI). */
  static on(dataSource: DataSource): QuotaRepository {
    return new QuotaRepository(dataSource.getRepository(Quota));
  }

  /** The user's quota; served by the unique index on `id_user`. */
  async of(userId: number): Promise<QuotaState | null> {
    const row = await this.quotas.findOneBy({ id_user: userId });
    return row ? quotaState(row) : null;
  }

  /**
   * Creates the user's quota or changes it. A new start begins a new period: nothing consumed,
   * both alerts due again. The segments of sends in flight stay reserved either way: their
   * record gives them back or consumes them.
   */
  async save(userId: number, settings: QuotaSettings): Promise<void> {
    const now = nowUtc();
    const columns = {
      credit: settings.credit,
      additional: settings.additional,
      start_date: settings.start_date,
      expiration_date: settings.expiration_date,
      renew_interval: settings.renew_interval,
      auto_renew: settings.auto_renew ? 1 : 0,
      report_unused: settings.report_unused ? 1 : 0,
      report_unused_additional: settings.report_unused_additional ? 1 : 0,
    };
    await this.quotas.manager.transaction(async (manager) => {
      const repository = manager.getRepository(Quota);
      const existing = await repository.findOne({
        where: { id_user: userId },
        lock:
          manager.connection.options.type === 'mysql' ? { mode: 'pessimistic_write' } : undefined,
      });
      if (!existing) {
        await repository.insert({
          id_user: userId,
          ...columns,
          consumed: 0,
          reserved: 0,
          alerted_close: 0,
          alerted_reached: 0,
          created_at: now,
          updated_at: null,
        });
        return;
      }
      const newPeriod = existing.start_date.slice(0, 19) !== settings.start_date;
      await repository.update(
        { id: existing.id },
        {
          ...columns,
          ...(newPeriod ? { consumed: 0, alerted_close: 0, alerted_reached: 0 } : {}),
          updated_at: now,
        },
      );
    });
  }

  /** Removes the user's quota; whether there was one. */
  async remove(userId: number): Promise<boolean> {
    const result = await this.quotas.delete({ id_user: userId });
    return Number(result.affected ?? 0) > 0;
  }
}
