import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Public } from '../common/auth/public.decorator';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { ApiEnvelopeResponse } from '../common/http/openapi';
import { ApiRequest, AuthenticatedUser, RequestSession } from '../common/http/request';
import { Params } from '../common/params/parse';
import { RequestParams } from '../common/params/request-params.decorator';
import { AppConfig } from '../config/configuration';
import { USER_VIEW_PROPERTIES } from '../users/user-view.schema';
import { clearSessionCookie, ownOrigin, setSessionCookie } from './session-cookie';
import { SessionAnswer, SessionsService } from './sessions.service';

const SESSION: SchemaObject = {
  type: 'object',
  required: ['user', 'csrf_token', 'expires_at', 'time_zone'],
  properties: {
    user: {
      type: 'object',
      required: ['id', 'email', 'status', 'admin', 'created_at'],
      properties: USER_VIEW_PROPERTIES,
    },
    csrf_token: {
      type: 'string',
      description: 'Sent back as the X-CSRF-Token header of every request that changes anything',
    },
    expires_at: {
      type: 'string',
      description: 'When the session ends if unused (service time zone)',
    },
    time_zone: {
      type: 'string',
      description: 'The service time zone (IANA name) of every date the API answers',
      example: 'Europe/Paris',
    },
  },
};

const FORM = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'];

function passwordsBody(names: string[]): SchemaObject {
  return {
    type: 'object',
    required: names,
    properties: Object.fromEntries(
      names.map((name) => [name, { type: 'string', minLength: 10, maxLength: 1024 }]),
    ),
  };
}

/** Signing in to the console, and the account operations it offers (docs/api.md#sessions-the-console). */
@ApiTags('sessions')
@Controller('api')
export class SessionsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_login',
    summary:
      'post_login: signs in with an e-mail and a password; sets the session cookie. 401 for a ' +
      'wrong pair, 429 with Retry-After after too many failures, 403 from another origin.',
  })
  @ApiSecurity({})
  @ApiConsumes(...FORM)
  @ApiBody({
    schema: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: { type: 'string' }, password: { type: 'string' } },
    },
  })
  @ApiEnvelopeResponse(SESSION, 'The session; the cookie smsgw_session is set')
  async login(
    @RequestParams() params: Params,
    @Req() request: ApiRequest,
    // Passthrough: the answer is still the envelope; only the cookie is written here.
    @Res({ passthrough: true }) response: Response,
  ): Promise<SessionAnswer> {
    const { answer, token } = await this.sessions.login(params, {
      origin: request.get('origin'),
      ownOrigin: ownOrigin(request, this.config),
      address: request.ip ?? '',
    });
    setSessionCookie(response, request, this.config, token);
    return answer;
  }

  @Get('session')
  @ApiOperation({
    operationId: 'get_session',
    summary: 'get_session: the current session; 401 without one (a key is not a session).',
  })
  @ApiSecurity('session')
  @ApiEnvelopeResponse(SESSION, 'The session')
  current(@CurrentUser() user: AuthenticatedUser, @Req() request: ApiRequest) {
    return this.sessions.current(user, sessionOf(request));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_logout',
    summary: 'post_logout: ends the current session and clears its cookie.',
  })
  @ApiSecurity('session')
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The session ended')
  async logout(
    @Req() request: ApiRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<true> {
    await this.sessions.end(sessionOf(request).id);
    clearSessionCookie(response, request, this.config);
    return true;
  }

  @Post('me/password')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_me_password',
    summary:
      "post_me_password: changes the caller's password; every other session of the user ends. " +
      'A wrong current_password is 400.',
  })
  @ApiConsumes(...FORM)
  @ApiBody({ schema: passwordsBody(['current_password', 'new_password']) })
  @ApiEnvelopeResponse({ type: 'boolean', enum: [true] }, 'The password changed')
  changePassword(
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: ApiRequest,
    @RequestParams() params: Params,
  ): Promise<true> {
    return this.sessions.changePassword(user, request.session, params);
  }

  @Post('me/api-key')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'post_me_api_key',
    summary:
      'post_me_api_key: gives the caller a new API key, shown only this once; the old key ' +
      'stops working at once. A wrong password is 400.',
  })
  @ApiConsumes(...FORM)
  @ApiBody({ schema: passwordsBody(['password']) })
  @ApiEnvelopeResponse(
    {
      type: 'object',
      required: ['api_key'],
      properties: { api_key: { type: 'string', pattern: '^[0-9a-f]{32}$' } },
    },
    'The new key',
  )
  newApiKey(
    @CurrentUser() user: AuthenticatedUser,
    @RequestParams() params: Params,
  ): Promise<{ api_key: string }> {
    return this.sessions.newApiKey(user, params);
  }
}

/** The session the request was authenticated with: a key is not one. */
function sessionOf(request: ApiRequest): RequestSession {
  if (!request.session) {
    throw new ApiError(ErrorCode.INVALID_CREDENTIALS);
  }
  return request.session;
}
