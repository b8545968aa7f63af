import { Injectable } from '@nestjs/common';
import { nowUtc, parseApiDatetime } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { addInterval, checkRenewInterval, MAX_QUOTA_COUNT, quotaView, QuotaView } from './quota';
import { QuotaRepository } from './quota.repository';
import { UserCommandError } from './users.service';
import { UsersRepository } from './users.repository';

/** `quota show`: what get_me shows, and how the quota renews. */
export interface QuotaDetails extends QuotaView {
  renew_interval: string;
  report_unused: boolean;
  report_unused_additional: boolean;
}

/** The options of `quota set`, as the command line gives them. */
export interface QuotaOptions {
  credit: string;
  additional?: string;
  start?: string;
  renewInterval?: string;
  autoRenew?: boolean;
  reportUnused?: boolean;
  reportUnusedAdditional?: boolean;
}

/** Users' quotas: set by the administrator (CLI), shown to their user (get_me). */
@Injectable()
export class QuotaService {
  constructor(
    private readonly users: UsersRepository,
    private readonly quotas: QuotaRepository,
    private readonly config: AppConfig,
  ) {}

  /** Creates or changes the user's quota (docs/dispatch.md#quotas); the quota afterwards. */
  async set(email: string, options: QuotaOptions): Promise<QuotaDetails> {
    const userId = await this.userId(email);
    const credit = count('--credit', options.credit);
    const additional = count('--additional', options.additional ?? '0');
    const start =
      options.start === undefined
        ? nowUtc()
        : parseApiDatetime(options.start, this.config.timeZone);
    if (start === null) {
      throw new UserCommandError(
        `--start must be a date and time as YYYY-MM-DD HH:MM:SS, not "${options.start}".`,
      );
    }
    const checked = checkRenewInterval(options.renewInterval ?? 'P1M');
    if ('reason' in checked) {
      throw new UserCommandError(`--renew-interval: ${checked.reason}`);
    }
    await this.quotas.save(userId, {
      credit,
      additional,
      start_date: start,
      expiration_date: addInterval(start, checked.interval, this.config.timeZone),
      renew_interval: checked.interval,
      auto_renew: options.autoRenew === true,
      report_unused: options.reportUnused === true,
      report_unused_additional: options.reportUnusedAdditional === true,
    });
    return this.show(email);
  }

  async show(email: string): Promise<QuotaDetails> {
    const quota = await this.quotas.of(await this.userId(email));
    if (!quota) {
      throw new UserCommandError(`The user ${email} has no quota.`);
    }
    return {
      ...quotaView(quota, nowUtc(), this.config.timeZone),
      renew_interval: quota.renew_interval,
      report_unused: quota.report_unused,
      report_unused_additional: quota.report_unused_additional,
    };
  }

  async remove(email: string): Promise<{ removed: boolean }> {
    return { removed: await this.quotas.remove(await this.userId(email)) };
  }

  /** The user's quota as get_me shows it, or null: a user without one sends without limit. */
  async viewOf(userId: number): Promise<QuotaView | null> {
    const quota = await this.quotas.of(userId);
    return quota ? quotaView(quota, nowUtc(), this.config.timeZone) : null;
  }

  private async userId(email: string): Promise<number> {
    const user = await this.users.findByEmail(email.trim());
    if (!user) {
      throw new UserCommandError(`No user has the e-mail ${email}.`);
    }
    return user.id;
  }
}

/** A count of segments given on the command line. */
function count(option: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > MAX_QUOTA_COUNT) {
    throw new UserCommandError(
      `${option} must be a whole number from 0 to ${MAX_QUOTA_COUNT}, not "${value}".`,
    );
  }
  return Number(value);
}
