import type { Response } from 'express';
import { SESSION_COOKIE } from '../common/auth/session';
import { ApiRequest } from '../common/http/request';
import { AppConfig } from '../config/configuration';

/** The cookie's attributes (docs/api.md#sessions-the-console): never readable by scripts, never cross-site. */
function attributes(request: ApiRequest, config: AppConfig): string {
  const secure = request.secure || config.sessions.cookieSecure;
  return `Path=${config.basePath || '/'}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function setSessionCookie(
  response: Response,
  request: ApiRequest,
  config: AppConfig,
  token: string,
): void {
  const maxAge = Math.floor(config.sessions.maxMs / 1000);
  response.setHeader(
    'Set-Cookie',
    `${SESSION_COOKIE}=${token}; Max-Age=${maxAge}; ${attributes(request, config)}`,
  );
}

export function clearSessionCookie(response: Response, request: ApiRequest, config: AppConfig) {
  response.setHeader('Set-Cookie', `${SESSION_COOKIE}=; Max-Age=0; ${attributes(request, config)}`);
}

/** The console's own origin: PUBLIC_URL's when set, else the scheme and host of the request. */
export function ownOrigin(request: ApiRequest, config: AppConfig): string {
  return config.publicUrl
    ? new URL(config.publicUrl).origin
    : `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}
