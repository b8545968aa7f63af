import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ResolvedSession, SessionResolver } from '../common/auth/session';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { AuthenticatedUser, RequestSession } from '../common/http/request';
import { isAbsent, Params, requiredMessage } from '../common/params/parse';
import { utcDate, utcString, utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { passwordProblem } from '../users/password';
import { userView, UserView, UsersService } from '../users/users.service';
import { SessionsRepository } from './sessions.repository';

export const LOGIN_REFUSED_MESSAGE = 'Invalid email or password.';

/** Failed sign-ins counted over this window (docs/api.md#sessions-the-console). */
const ATTEMPT_WINDOW_MS = 15 * 60_000;
const FAILURES_PER_EMAIL = 5;
const FAILURES_PER_ADDRESS = 20;
/** A session's last use is written at most this often, not at every request. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionAnswer {
  user: UserView;
  csrf_token: string;
  expires_at: string;
  /** The service time zone (IANA), the zone of every date the API answers. */
  time_zone: string;
}

/** What the controller sends back of a sign-in: the answer, and the cookie's token. */
export interface SignedIn {
  answer: SessionAnswer;
  token: string;
}

/** Where a sign-in came from, as the controller reads it off the request. */
export interface SignInOrigin {
  /** The `Origin` header, when the request had one. */
  origin: string | undefined;
  /** The console's own origin. */
  ownOrigin: string;
  /** The client's address, through the trusted proxies. */
  address: string;
}

/** Passwords and console sessions (docs/api.md#sessions-the-console), in the order the rules are listed. */
@Injectable()
export class SessionsService extends SessionResolver {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async login(params: Params, from: SignInOrigin): Promise<SignedIn> {
    // Cross-site requests: another page cannot sign a browser in (or count failures for it).
    if (from.origin !== undefined && from.origin !== from.ownOrigin) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, undefined, 'forbidden', {
        message:
          `Signing in is accepted only from the console's own origin (${from.ownOrigin}), ` +
          `not from ${from.origin}.`,
      });
    }
    const { email, password } = credentials(params, ['email', 'password']);
    const now = new Date();
    const counted = email.trim().toLowerCase().slice(0, 150);
    await this.refuseWhileLockedOut(counted, from.address, now);
    const user = await this.users.findByEmail(email);
    // Checked even without a user, so that an unknown e-mail answers in the same time.
    if (!(await this.users.checkPassword(user?.id, password)) || !user) {
      await this.sessions.recordFailure(counted, from.address, utcString(now));
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, undefined, 'default', {
        message: LOGIN_REFUSED_MESSAGE,
      });
    }
    if (user.status !== 'active') {
      throw new ApiError(ErrorCode.SUSPENDED_USER);
    }
    await this.sessions.clearFailures(counted);
    // Sessions are made only here: purging here keeps the table from outgrowing its use.
    await this.purge(now);
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const stamp = utcString(now);
    const session = await this.sessions.create(user.id, hashToken(token), csrfToken, stamp);
    return {
      token,
      answer: this.answer(userView(user), {
        id: session.id,
        csrfToken,
        createdAt: stamp,
        lastUsedAt: stamp,
      }),
    };
  }

  /** GET /api/session/: the signed-in user and their session. */
  async current(user: AuthenticatedUser, session: RequestSession): Promise<SessionAnswer> {
    const account = await this.users.account(user.id);
    if (!account) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS);
    }
    return this.answer(account, session);
  }

  async resolve(token: string): Promise<ResolvedSession | null> {
    const found = await this.sessions.findByTokenHash(hashToken(token));
    if (!found) {
      return null;
    }
    const now = Date.now();
    let lastUsedAt = found.last_used_at;
    if (now >= this.endOf(found.created_at, lastUsedAt)) {
      await this.sessions.end(found.id);
      return null;
    }
    if (now - utcDate(lastUsedAt).getTime() >= TOUCH_EVERY_MS) {
      lastUsedAt = utcString(new Date(now));
      await this.sessions.touch(found.id, lastUsedAt);
    }
    return {
      user: {
        id: found.id_user,
        email: found.email,
        admin: found.admin !== 0,
        settings: await this.users.settingsOf(found.id_user),
      },
      active: found.status === 'active',
      session: {
        id: found.id,
        csrfToken: found.csrf_token,
        createdAt: found.created_at,
        lastUsedAt,
      },
    };
  }

  end(sessionId: number): Promise<void> {
    return this.sessions.end(sessionId);
  }

  /** `smsgw user sessions end`: how many sessions of the user ended. */
  endAllOf(userId: number): Promise<number> {
    return this.sessions.endAllOf(userId);
  }

  /** POST /api/me/password/: every other session of the user ends. */
  async changePassword(
    user: AuthenticatedUser,
    session: RequestSession | undefined,
    params: Params,
  ): Promise<true> {
    const given = credentials(params, ['current_password', 'new_password']);
    await this.requirePassword(user.id, given.current_password, 'current_password');
    const problem = passwordProblem(given.new_password);
    if (problem !== null) {
      throw ApiError.invalid(`new_password ${problem}`);
    }
    await this.users.changePassword(user.id, given.new_password);
    await this.sessions.endAllOf(user.id, session?.id);
    return true;
  }

  /** POST /api/me/api-key/: the new key, shown once; the old one stops working at once. */
  async newApiKey(user: AuthenticatedUser, params: Params): Promise<{ api_key: string }> {
    const { password } = credentials(params, ['password']);
    await this.requirePassword(user.id, password, 'password');
    return { api_key: await this.users.replaceKey(user.id) };
  }

  /**
   * A wrong password here is a bad parameter (HTTP 400), not lost credentials (401), which the
   * console would read as a lost session.
   */
  private async requirePassword(userId: number, password: string, name: string): Promise<void> {
    if (!(await this.users.checkPassword(userId, password))) {
      throw ApiError.invalid(`${name} is not the user's password.`);
    }
  }

  /** 429 while the e-mail or the address has too many recent failures, whatever the password. */
  private async refuseWhileLockedOut(email: string, address: string, now: Date): Promise<void> {
    const since = utcString(new Date(now.getTime() - ATTEMPT_WINDOW_MS));
    await this.sessions.purgeFailures(since);
    const byEmail = await this.sessions.failuresSince('email', email, since, FAILURES_PER_EMAIL);
    const byAddress = await this.sessions.failuresSince(
      'address',
      address,
      since,
      FAILURES_PER_ADDRESS,
    );
    // The oldest failure of a full count must leave the window before one more is allowed.
    const freeAt = Math.max(
      byEmail.length >= FAILURES_PER_EMAIL ? windowEnd(byEmail[byEmail.length - 1]) : 0,
      byAddress.length >= FAILURES_PER_ADDRESS ? windowEnd(byAddress[byAddress.length - 1]) : 0,
    );
    if (freeAt > 0) {
      const seconds = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, undefined, 'too_many_attempts', {
        message: `Too many failed sign-ins for this e-mail or from this address: try again in ${seconds} seconds.`,
        headers: { 'Retry-After': String(seconds) },
      });
    }
  }

  private async purge(now: Date): Promise<void> {
    await this.sessions.purge(
      utcString(new Date(now.getTime() - this.config.sessions.idleMs)),
      utcString(new Date(now.getTime() - this.config.sessions.maxMs)),
    );
  }

  /** When a session ends if unused from now: its idle end or its absolute end, the earlier. */
  private endOf(createdAt: string, lastUsedAt: string): number {
    return Math.min(
      utcDate(lastUsedAt).getTime() + this.config.sessions.idleMs,
      utcDate(createdAt).getTime() + this.config.sessions.maxMs,
    );
  }

  private answer(user: UserView, session: RequestSession): SessionAnswer {
    const zone = this.config.timeZone;
    const expiresAt = utcString(new Date(this.endOf(session.createdAt, session.lastUsedAt)));
    return {
      user: { ...user, created_at: utcToZone(user.created_at, zone) ?? user.created_at },
      csrf_token: session.csrfToken,
      expires_at: utcToZone(expiresAt, zone) ?? expiresAt,
      time_zone: zone,
    };
  }
}

/** Only the token's SHA-256 is stored: a copy of the database signs no one in. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function windowEnd(failedAt: string): number {
  return utcDate(failedAt).getTime() + ATTEMPT_WINDOW_MS;
}

/** The named string parameters, all required. */
function credentials<N extends string>(params: Params, names: readonly N[]): Record<N, string> {
  const missing = names.filter((name) => isAbsent(params[name]));
  if (missing.length > 0) {
    throw ApiError.missing(requiredMessage(missing));
  }
  const values = {} as Record<N, string>;
  for (const name of names) {
    const value = params[name];
    if (typeof value !== 'string') {
      throw ApiError.invalid(`${name} must be a string.`);
    }
    values[name] = value;
  }
  return values;
}
