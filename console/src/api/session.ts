import { callApi, jsonBody } from './client';

/** The signed-in person's session, as login and `GET /api/session/` describe it. */
export interface Session {
  user: { id: number; email: string; status: string; admin: boolean; created_at: string };
  csrf_token: string;
  expires_at: string;
}

/** TanStack Query's key of the current session. */
export const SESSION_KEY = ['session'] as const;

export function getSession(): Promise<Session> {
  return callApi<Session>('api/session/');
}

export function login(email: string, password: string): Promise<Session> {
  return callApi<Session>('api/login/', jsonBody({ email, password }));
}
