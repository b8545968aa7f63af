import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { DriverSql } from '../database/driver/group-commit';
import { nowUtc } from '../common/time/datetime';
import { Setting } from './entities/setting.entity';
import { User, UserStatus } from './entities/user.entity';

/** What authentication needs of the user holding a key. */
export interface KeyHolder {
  id: number;
  email: string;
  admin: number;
  status: UserStatus;
}

@Injectable()
export class UsersRepository {
  private readonly userByKeyHashSql: string;
  private readonly sql: DriverSql;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
  ) {
    this.sql = DriverSql.for(dataSource);
    const q = (name: string) => dataSource.driver.escape(name);
    this.userByKeyHashSql =
      `SELECT u.id AS id, u.email AS email, u.admin AS admin, u.status AS status, ` +
      `s.name AS setting_name, s.value AS setting_value ` +
      `FROM ${q('user')} u LEFT JOIN ${q('setting')} s ON s.id_user = u.id ` +
      `WHERE u.api_key_hash = ?`;
  }

  /**
   * The user holding a key hash, with their settings, in one round trip. Every request runs it:
   * it is written once as SQL (served by the unique index on the hash) and run on the driver,
   * rather than rebuilt by the query builder and passed through a query runner each time, which
   * cost more than the query itself (bench:api).
   */
  async findByKeyHashWithSettings(
    keyHash: string,
  ): Promise<{ user: KeyHolder; settings: Record<string, string> } | null> {
    const rows = await this.sql.select<{
      id: number;
      email: string;
      admin: number;
      status: UserStatus;
      setting_name: string | null;
      setting_value: string | null;
    }>(this.userByKeyHashSql, [keyHash]);
    if (rows.length === 0) {
      return null;
    }
    const settings: Record<string, string> = {};
    for (const row of rows) {
      if (row.setting_name !== null) {
        settings[row.setting_name] = row.setting_value ?? '';
      }
    }
    const { id, email, admin, status } = rows[0];
    return { user: { id: Number(id), email, admin: Number(admin), status }, settings };
  }

  /** For what runs outside Nest's container (the CLI). */
  static on(dataSource: DataSource): UsersRepository {
    return new UsersRepository(
      dataSource,
      dataSource.getRepository(User),
      dataSource.getRepository(Setting),
    );
  }

  findByKeyHash(keyHash: string): Promise<User | null> {
    return this.users.findOneBy({ api_key_hash: keyHash });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email });
  }

  list(): Promise<User[]> {
    return this.users.find({ order: { id: 'ASC' } });
  }

  /** Inserts a user and their settings in one transaction. */
  async create(
    {
      password_hash: passwordHash = null,
      ...user
    }: Pick<User, 'email' | 'api_key_hash' | 'admin' | 'status'> &
      Partial<Pick<User, 'password_hash'>>,
    settings: Record<string, string>,
  ): Promise<User> {
    return this.dataSource.transaction(async (manager) => {
      const now = nowUtc();
      const saved = await manager
        .getRepository(User)
        .save(Object.assign(new User(), user, { created_at: now, updated_at: null }));
      if (passwordHash !== null) {
        await manager.getRepository(User).update({ id: saved.id }, { password_hash: passwordHash });
      }
      await this.insertSettings(manager, saved.id, settings, now);
      return saved;
    });
  }

  async update(
    id: number,
    changes: Partial<Pick<User, 'status' | 'api_key_hash' | 'password_hash'>>,
  ): Promise<void> {
    await this.users.update({ id }, { ...changes, updated_at: nowUtc() });
  }

  async settingsOf(userId: number): Promise<Setting[]> {
    return this.settings.find({ where: { id_user: userId }, order: { name: 'ASC' } });
  }

  /**
   * Sets settings in one transaction, creating those the user has no row for. The user's row is
   * locked first (SQLite runs one write transaction at a time anyway), so that two requests for
   * one user take turns rather than both inserting a missing setting, or deadlocking on InnoDB's
   * gap locks.
   */
  async setSettings(userId: number, changes: Readonly<Record<string, string>>): Promise<void> {
    const mysql = this.dataSource.options.type === 'mysql';
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `SELECT id FROM ${manager.connection.driver.escape('user')} WHERE id = ?` +
          (mysql ? ' FOR UPDATE' : ''),
        [userId],
      );
      const repository = manager.getRepository(Setting);
      const now = nowUtc();
      for (const [name, value] of Object.entries(changes)) {
        const existing = await repository.findOneBy({ id_user: userId, name });
        if (existing) {
          await repository.update({ id: existing.id }, { value, updated_at: now });
        } else {
          await this.insertSettings(manager, userId, { [name]: value }, now);
        }
      }
    });
  }

  /** The stored password hash of a user; null without a user or a password. */
  async passwordHashOf(id: number): Promise<string | null> {
    const user = await this.users.findOne({
      select: { id: true, password_hash: true },
      where: { id },
    });
    return user?.password_hash ?? null;
  }

  findById(id: number): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  private async insertSettings(
    manager: EntityManager,
    userId: number,
    settings: Record<string, string>,
    now: string,
  ): Promise<void> {
    const rows = Object.entries(settings).map(([name, value]) => ({
      id_user: userId,
      name,
      value,
      created_at: now,
      updated_at: null,
    }));
    if (rows.length > 0) {
      await manager.createQueryBuilder().insert().into(Setting).values(rows).execute();
    }
  }
}
