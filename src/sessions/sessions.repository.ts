import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, LessThan, MoreThanOrEqual, Not, Repository } from 'typeorm';
import { UserStatus } from '../users/entities/user.entity';
import { LoginAttempt } from './entities/login-attempt.entity';
import { Session } from './entities/session.entity';

/** A session with what authentication needs of its user. */
export interface SessionWithUser {
  id: number;
  csrf_token: string;
  created_at: string;
  last_used_at: string;
  id_user: number;
  email: string;
  admin: number;
  status: UserStatus;
}

@Injectable()
export class SessionsRepository {
  private readonly byTokenHashSql: string;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
    @InjectRepository(LoginAttempt) private readonly attempts: Repository<LoginAttempt>,
  ) {
    const q = (name: string) => dataSource.driver.escape(name);
    this.byTokenHashSql =
      'SELECT s.id AS id, s.csrf_token AS csrf_token, s.created_at AS created_at, ' +
      's.last_used_at AS last_used_at, u.id AS id_user, u.email AS email, u.admin AS admin, ' +
      `u.status AS status FROM ${q('session')} s JOIN ${q('user')} u ON u.id = s.id_user ` +
      'WHERE s.token_hash = ?';
  }

  /** For what runs outside Nest's container (the CLI). */
  static on(dataSource: DataSource): SessionsRepository {
    return new SessionsRepository(
      dataSource,
      dataSource.getRepository(Session),
      dataSource.getRepository(LoginAttempt),
    );
  }

  async create(
    userId: number,
    tokenHash: string,
    csrfToken: string,
    now: string,
  ): Promise<Session> {
    return this.sessions.save(
      Object.assign(new Session(), {
        id_user: userId,
        token_hash: tokenHash,
        csrf_token: csrfToken,
        last_used_at: now,
        created_at: now,
        updated_at: null,
      }),
    );
  }

  /** Served by the unique index on the token hash. */
  async findByTokenHash(tokenHash: string): Promise<SessionWithUser | null> {
    const rows: SessionWithUser[] = await this.dataSource.query(this.byTokenHashSql, [tokenHash]);
    if (rows.length === 0) {
      return null;
    }
    const row = rows[0];
    return { ...row, id: Number(row.id), id_user: Number(row.id_user), admin: Number(row.admin) };
  }

  async touch(id: number, now: string): Promise<void> {
    await this.sessions.update({ id }, { last_used_at: now });
  }

  async end(id: number): Promise<void> {
    await this.sessions.delete({ id });
  }

  /** Ends every session of a user but `keep`; how many ended. */
  async endAllOf(userId: number, keep?: number): Promise<number> {
    const result = await this.sessions.delete(
      keep === undefined ? { id_user: userId } : { id_user: userId, id: Not(keep) },
    );
    return result.affected ?? 0;
  }

  /** Removes the sessions idle since `idleBefore` or made before `createdBefore`. */
  async purge(idleBefore: string, createdBefore: string): Promise<void> {
    await this.sessions.delete({ last_used_at: LessThan(idleBefore) });
    await this.sessions.delete({ created_at: LessThan(createdBefore) });
  }

  async recordFailure(email: string, address: string, now: string): Promise<void> {
    await this.attempts.insert({ email, address, created_at: now, updated_at: null });
  }

  /**
   * When the failures of an e-mail (or an address) since `since` were made, newest first, at most
   * `limit` of them.
   */
  async failuresSince(
    by: 'email' | 'address',
    value: string,
    since: string,
    limit: number,
  ): Promise<string[]> {
    const rows = await this.attempts.find({
      select: { created_at: true },
      where: { [by]: value, created_at: MoreThanOrEqual(since) },
      order: { created_at: 'DESC' },
      take: limit,
    });
    return rows.map((row) => row.created_at);
  }

  async clearFailures(email: string): Promise<void> {
    await this.attempts.delete({ email });
  }

  async purgeFailures(before: string): Promise<void> {
    await this.attempts.delete({ created_at: LessThan(before) });
  }
}
