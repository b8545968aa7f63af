import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { AuthenticatedUser } from '../common/http/request';
import { utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { QuotaView } from '../users/quota';
import { QuotaService } from '../users/quota.service';
import { checkSettingsTogether, SETTING_DEFINITIONS, SettingDefinition } from '../users/settings';
import { UsersService, UserView } from '../users/users.service';

/** GET and POST /api/setting/, GET /api/me/ (docs/api.md#get_setting and after). */
@Injectable()
export class AccountService {
  constructor(
    private readonly users: UsersService,
    private readonly quotas: QuotaService,
    private readonly config: AppConfig,
  ) {}

  /** Authentication read them, defaults included, for this very request. */
  settings(user: AuthenticatedUser): Record<string, string> {
    return user.settings;
  }

  /** The same definitions the checks of post_setting and `smsgw setting set` read. */
  definitions(): readonly SettingDefinition[] {
    return SETTING_DEFINITIONS;
  }

  /**
   * Each change was checked by the parse (rules 1 to 3); rule 4 checks them with the settings
   * they go with, and rule 5 writes them at once.
   */
  changeSettings(
    user: AuthenticatedUser,
    changes: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    const reason = checkSettingsTogether(user.settings, changes);
    if (reason !== null) {
      throw ApiError.invalid(reason);
    }
    return this.users.changeSettings(user.id, changes);
  }

  /**
   * The caller's account, as `smsgw user list` prints it, and their quota or null; dates in the
   * service time zone.
   */
  async me(user: AuthenticatedUser): Promise<UserView & { quota: QuotaView | null }> {
    // Authentication found the user in this request: only a delete in between loses it.
    const account = (await this.users.account(user.id))!;
    return {
      ...account,
      created_at: utcToZone(account.created_at, this.config.timeZone) ?? account.created_at,
      quota: await this.quotas.viewOf(user.id),
    };
  }
}
