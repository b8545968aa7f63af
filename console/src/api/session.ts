import { answerOf, api, type paths } from './client';

/** The signed-in person's session, as login and `GET /api/session/` describe it. */
export type Session = NonNullable<
  paths['/api/session']['get']['responses'][200]['content']['application/json']['response']
>;

/** TanStack Query's key of the current session. */
export const SESSION_KEY = ['session'] as const;

export function getSession(): Promise<Session> {
  return answerOf(api.GET('/api/session'));
}

export function login(email: string, password: string): Promise<Session> {
  return answerOf(api.POST('/api/login', { body: { email, password } }));
}
