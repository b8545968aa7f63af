import { timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError, ErrorCode } from '../errors/api-error';
import { ApiRequest, AuthenticatedUser } from '../http/request';
import { IS_PUBLIC } from './public.decorator';
import {
  CHANGES_STATE,
  CSRF_HEADER,
  ResolvedSession,
  SessionResolver,
  sessionTokenOf,
} from './session';

export const CSRF_REFUSED_MESSAGE =
  "The console's security token (the X-CSRF-Token header) is missing or wrong: nothing was done. " +
  'Reload the console, or sign in again.';

/** What the guard needs from the users feature, without depending on it. */
export abstract class ApiKeyResolver {
  /** The user holding this key with their settings, with `active` telling their status; or null. */
  abstract resolve(apiKey: string): Promise<(AuthenticatedUser & { active: boolean }) | null>;
}

/**
 * docs/api.md#authentication and docs/api-choices.md#api-keys: the key is the first non-empty one
 * of query `api_key`, form field `api_key`, header `X-Api-Key` (a bad query key is not rescued by a
 * good header); no user is 401, a user who is not active is 403, and the operation does not run.
 * Only when no key is given at all does the console's session cookie authenticate
 * (docs/api.md#sessions-the-console).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly resolver: ApiKeyResolver,
    private readonly sessions: SessionResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) {
      return true;
    }
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const key = presentedKey(request);
    if (key === undefined) {
      const changesState =
        !['GET', 'HEAD'].includes(request.method) ||
        this.reflector.get<boolean>(CHANGES_STATE, context.getHandler()) === true;
      return this.authenticateSession(request, changesState);
    }
    const found = await this.resolver.resolve(key);
    if (!found) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS);
    }
    if (!found.active) {
      throw new ApiError(ErrorCode.SUSPENDED_USER);
    }
    const { active: _active, ...user } = found;
    request.user = user;
    return true;
  }

  private async authenticateSession(request: ApiRequest, changesState: boolean): Promise<boolean> {
    const token = sessionTokenOf(request.headers.cookie);
    const found = token === undefined ? null : await this.sessions.resolve(token);
    if (!found) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS);
    }
    if (!found.active) {
      // A reactivated user signs in again.
      await this.sessions.end(found.session.id);
      throw new ApiError(ErrorCode.SUSPENDED_USER);
    }
    if (changesState && !csrfTokenMatches(request, found)) {
      throw new ApiError(ErrorCode.INVALID_CREDENTIALS, undefined, 'forbidden', {
        message: CSRF_REFUSED_MESSAGE,
      });
    }
    request.user = found.user;
    request.session = found.session;
    return true;
  }
}

function csrfTokenMatches(request: ApiRequest, found: ResolvedSession): boolean {
  const given = request.headers[CSRF_HEADER];
  if (typeof given !== 'string') {
    return false;
  }
  const expected = Buffer.from(found.session.csrfToken);
  const presented = Buffer.from(given);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

function presentedKey(request: ApiRequest): string | undefined {
  // GET operations read the query string only (docs/api-choices.md#api-keys), their key included.
  const body: unknown = ['GET', 'HEAD'].includes(request.method) ? undefined : request.body;
  const candidates: unknown[] = [
    (request.query as Record<string, unknown>).api_key,
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>).api_key
      : undefined,
    request.headers['x-api-key'],
  ];
  for (const candidate of candidates) {
    // Absent, empty and a JSON `null` all mean "no key here": the next source is read.
    if (candidate === undefined || candidate === null || candidate === '') {
      continue;
    }
    // A key given as a list, a map or a number is still the key given: it simply matches no user.
    return typeof candidate === 'string' ? candidate : '';
  }
  return undefined;
}
