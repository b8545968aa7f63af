import { SetMetadata } from '@nestjs/common';
import { AuthenticatedUser, RequestSession } from '../http/request';

/** The console session's cookie. */
export const SESSION_COOKIE = 'smsgw_session';

/** The header a session-authenticated request that changes anything carries its token in. */
export const CSRF_HEADER = 'x-csrf-token';

export const CHANGES_STATE = 'smsgw:changes-state';

/**
 * Marks a GET operation that changes something (get_send_sms): signed in with a session, it
 * needs the console's token as POST and DELETE do, so that a page elsewhere cannot trigger it.
 */
export const ChangesState = (): MethodDecorator => SetMetadata(CHANGES_STATE, true);

/** A live session and its user, as the sessions feature finds them. */
export interface ResolvedSession {
  user: AuthenticatedUser;
  active: boolean;
  session: RequestSession;
}

/** What the guard needs from the sessions feature, without depending on it. */
export abstract class SessionResolver {
  /** The live session of a cookie's token (its last use recorded); null when none is. */
  abstract resolve(token: string): Promise<ResolvedSession | null>;

  abstract end(sessionId: number): Promise<void>;
}

/** The session token of the request's `Cookie` header, if it has one. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) {
    return undefined;
  }
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === SESSION_COOKIE) {
      const value = pair.slice(separator + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}
