import { answerOf, api, ApiError, type paths } from './client';

/** The signed-in person's session, as login and `GET /api/session/` describe it. */
export type Session = NonNullable<
  paths['/api/session']['get']['responses'][200]['content']['application/json']['response']
>;

/** TanStack Query's key of the current session. */
export const SESSION_KEY = ['session'] as const;

/**
 * The CSRF token of the session, sent back with every request that changes anything (and with
 * `GET /api/send-sms/`, which creates a message): the API refuses them without it.
 */
let csrfToken: string | null = null;

function remember(session: Session): Session {
  csrfToken = session.csrf_token;
  return session;
}

api.use({
  onRequest({ request }) {
    const changes = request.method !== 'GET' || new URL(request.url).pathname.endsWith('/send-sms');
    if (changes && csrfToken !== null) {
      request.headers.set('X-CSRF-Token', csrfToken);
    }
    return request;
  },
});

/**
 * The header a request made outside `api` (an upload through XMLHttpRequest, for its progress)
 * carries for the API to accept a change from the session.
 */
export function csrfHeader(): Record<string, string> {
  return csrfToken === null ? {} : { 'X-CSRF-Token': csrfToken };
}

export function getSession(): Promise<Session> {
  return answerOf(api.GET('/api/session')).then(remember);
}

export function login(email: string, password: string): Promise<Session> {
  return answerOf(api.POST('/api/login', { body: { email, password } })).then(remember);
}

export async function logout(): Promise<void> {
  await answerOf(api.POST('/api/logout'));
  csrfToken = null;
}

/** Whether an error means the session is gone (expired, ended elsewhere, signed out). */
export function isSessionLost(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

/** Forgets the session's token when the API says the session is gone. */
export function forgetSession(): void {
  csrfToken = null;
}
