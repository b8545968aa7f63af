import { All, Controller, Param, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/current-user.decorator';
import { Public } from '../common/auth/public.decorator';
import { AuthenticatedUser } from '../common/http/request';
import { AppConfig } from '../config/configuration';
import { CallbackExceptionFilter } from './callback-exception.filter';
import { CallbackHttpRequest, toCallbackRequest } from './callback-request';
import { CallbacksService } from './callbacks.service';

/**
 * The provider callbacks (docs/adapters.md#callbacks), any method. They are not part of the
 * envelope API: once the key is accepted the answer is always 200 with an empty body, so that it
 * never tells whether an adapter, message or phone exists. The response is written here (`@Res()`)
 * precisely so that the envelope interceptor's result is not sent.
 */
@ApiExcludeController()
@UseFilters(CallbackExceptionFilter)
@Controller('callback')
export class CallbacksController {
  constructor(
    private readonly callbacks: CallbacksService,
    private readonly config: AppConfig,
  ) {}

  @All('status/:adapter')
  async status(
    @CurrentUser() user: AuthenticatedUser,
    @Param('adapter') adapter: string,
    @Req() request: CallbackHttpRequest,
    @Res() response: Response,
  ): Promise<void> {
    await this.callbacks.statusCallback(
      user,
      adapter,
      toCallbackRequest(request, this.config.publicUrl),
    );
    response.status(200).end();
  }

  /**
   * The URLs smsgw builds for a phone (docs/adapters.md#callback-urls): its token stands for the
   * key, so an unknown token is refused as an unknown key is.
   */
  @Public()
  @All('phone/:kind')
  async byToken(
    @Param('kind') kind: string,
    @Req() request: CallbackHttpRequest,
    @Res() response: Response,
  ): Promise<void> {
    const known = await this.callbacks.tokenCallback(
      kind,
      toCallbackRequest(request, this.config.publicUrl),
    );
    response.status(known ? 200 : 401).end();
  }

  @All('reception/:adapter/:id_phone')
  async reception(
    @CurrentUser() user: AuthenticatedUser,
    @Param('adapter') adapter: string,
    @Param('id_phone') phoneId: string,
    @Req() request: CallbackHttpRequest,
    @Res() response: Response,
  ): Promise<void> {
    await this.callbacks.receptionCallback(
      user,
      adapter,
      phoneId,
      toCallbackRequest(request, this.config.publicUrl),
    );
    response.status(200).end();
  }
}
