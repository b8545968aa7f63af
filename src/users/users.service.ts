import { Injectable } from '@nestjs/common';
import { ApiKeyResolver } from '../common/auth/api-key.guard';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../common/auth/api-key';
import { AuthenticatedUser } from '../common/http/request';
import { User, UserStatus, USER_STATUSES } from './entities/user.entity';
import { hashPassword, passwordProblem, verifyPassword } from './password';
import { checkSetting, checkSettingsTogether, DEFAULT_SETTINGS } from './settings';
import { UsersRepository } from './users.repository';

/** A failure of an administration command, told to the operator in one line. */
export class UserCommandError extends Error {}

export interface UserView {
  id: number;
  email: string;
  admin: boolean;
  status: UserStatus;
  created_at: string;
}

@Injectable()
export class UsersService extends ApiKeyResolver {
  constructor(private readonly users: UsersRepository) {
    super();
  }

  async resolve(apiKey: string): Promise<(AuthenticatedUser & { active: boolean }) | null> {
    // Keys are lowercase hex; RaspiSMS compared them case-insensitively, so we accept either.
    const key = apiKey.toLowerCase();
    if (!isWellFormedApiKey(key)) {
      return null;
    }
    const found = await this.users.findByKeyHashWithSettings(hashApiKey(key));
    if (!found) {
      return null;
    }
    const { user, settings } = found;
    return {
      id: user.id,
      email: user.email,
      admin: user.admin !== 0,
      apiKey,
      settings: { ...DEFAULT_SETTINGS, ...settings },
      active: user.status === 'active',
    };
  }

  async create(options: {
    email: string;
    apiKey?: string;
    admin?: boolean;
    status?: string;
    password?: string;
  }): Promise<UserView & { api_key: string }> {
    const email = options.email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 150) {
      throw new UserCommandError(`"${options.email}" is not an e-mail address.`);
    }
    const status = this.checkStatus(options.status ?? 'active');
    const apiKey = options.apiKey ?? generateApiKey();
    if (!isWellFormedApiKey(apiKey)) {
      throw new UserCommandError('--api-key must be 32 lowercase hexadecimal characters.');
    }
    const passwordHash =
      options.password === undefined ? null : await this.checkedHash(options.password);
    const keyHash = hashApiKey(apiKey);
    await this.refuseTaken(email, keyHash);
    let user: User;
    try {
      user = await this.users.create(
        {
          email,
          api_key_hash: keyHash,
          admin: options.admin ? 1 : 0,
          status,
          password_hash: passwordHash,
        },
        { ...DEFAULT_SETTINGS },
      );
    } catch (error) {
      // Another command may have taken the e-mail or the key since the check: say which.
      await this.refuseTaken(email, keyHash);
      throw error;
    }
    return { ...userView(user), api_key: apiKey };
  }

  async list(): Promise<UserView[]> {
    return (await this.users.list()).map(userView);
  }

  async setStatus(email: string, status: string): Promise<UserView> {
    const user = await this.requireUser(email);
    await this.users.update(user.id, { status: this.checkStatus(status) });
    return userView({ ...user, status: this.checkStatus(status) });
  }

  async rotateKey(email: string): Promise<UserView & { api_key: string }> {
    const user = await this.requireUser(email);
    const apiKey = generateApiKey();
    await this.users.update(user.id, { api_key_hash: hashApiKey(apiKey) });
    return { ...userView(user), api_key: apiKey };
  }

  /** Sets a user's password (`user password`, which then ends their sessions). */
  async setPassword(email: string, password: string): Promise<UserView> {
    const user = await this.requireUser(email);
    await this.users.update(user.id, { password_hash: await this.checkedHash(password) });
    return userView(user);
  }

  /** The user of an e-mail, for the sessions feature; null when none has it. */
  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email.trim());
  }

  findById(id: number): Promise<User | null> {
    return this.users.findById(id);
  }

  /**
   * Whether `password` is the user's, in constant time; false for no user (undefined) or a user
   * without one, after the same work.
   */
  async checkPassword(userId: number | undefined, password: string): Promise<boolean> {
    const stored = userId === undefined ? null : await this.users.passwordHashOf(userId);
    return verifyPassword(password, stored);
  }

  /** Stores a new password, already checked with `passwordProblem`. */
  async changePassword(userId: number, password: string): Promise<void> {
    await this.users.update(userId, { password_hash: await hashPassword(password) });
  }

  /** Gives the user a new key, the old one stops working at once; the new key, shown once. */
  async replaceKey(userId: number): Promise<string> {
    const apiKey = generateApiKey();
    await this.users.update(userId, { api_key_hash: hashApiKey(apiKey) });
    return apiKey;
  }

  async setSetting(email: string, name: string, value: string): Promise<Record<string, string>> {
    const user = await this.requireUser(email);
    const checked = checkSetting(name, value);
    if ('reason' in checked) {
      throw new UserCommandError(checked.reason);
    }
    const change = { [name]: checked.value };
    const reason = checkSettingsTogether(await this.settingsOf(user.id), change);
    if (reason !== null) {
      throw new UserCommandError(reason);
    }
    await this.users.setSettings(user.id, change);
    return this.settingsOf(user.id);
  }

  async settings(email: string): Promise<Record<string, string>> {
    return this.settingsOf((await this.requireUser(email)).id);
  }

  /** Every setting of a user, defaults included. */
  async settingsOf(userId: number): Promise<Record<string, string>> {
    const settings: Record<string, string> = { ...DEFAULT_SETTINGS };
    for (const setting of await this.users.settingsOf(userId)) {
      settings[setting.name] = setting.value;
    }
    return settings;
  }

  /**
   * Stores settings already checked by `checkSetting`, in one transaction; every setting of the
   * user afterwards.
   */
  async changeSettings(
    userId: number,
    changes: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    await this.users.setSettings(userId, changes);
    return this.settingsOf(userId);
  }

  /** The account of a user, as `user list` prints it; undefined when there is none. */
  async account(userId: number): Promise<UserView | undefined> {
    const user = await this.users.findById(userId);
    return user ? userView(user) : undefined;
  }

  /**
   * The e-mail and the key hash each have a unique index; a clash is told in words rather than
   * as the driver's constraint error (which, on MySQL, would quote the hash).
   */
  private async refuseTaken(email: string, keyHash: string): Promise<void> {
    if (await this.users.findByEmail(email)) {
      throw new UserCommandError(`A user with the e-mail ${email} already exists.`);
    }
    if (await this.users.findByKeyHash(keyHash)) {
      throw new UserCommandError('This API key is already used by another user.');
    }
  }

  private async checkedHash(password: string): Promise<string> {
    const problem = passwordProblem(password);
    if (problem !== null) {
      throw new UserCommandError(`The password ${problem}`);
    }
    return hashPassword(password);
  }

  /** The user of an e-mail, as `user list` prints it; an error naming it when none has it. */
  async require(email: string): Promise<UserView> {
    return userView(await this.requireUser(email));
  }

  private async requireUser(email: string): Promise<User> {
    const user = await this.users.findByEmail(email.trim());
    if (!user) {
      throw new UserCommandError(`No user has the e-mail ${email}.`);
    }
    return user;
  }

  private checkStatus(status: string): UserStatus {
    if (!(USER_STATUSES as readonly string[]).includes(status)) {
      throw new UserCommandError(
        `Status must be one of ${USER_STATUSES.join(', ')}, not "${status}".`,
      );
    }
    return status as UserStatus;
  }
}

export function userView(user: User): UserView {
  return {
    id: user.id,
    email: user.email,
    admin: Number(user.admin) !== 0,
    status: user.status,
    created_at: user.created_at,
  };
}
