import { HttpStatus } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { REPLAYED_HEADER, Replayed, successEnvelope, WithStatus } from './envelope';

/**
 * The HTTP adapter of the API: every handler's result goes out in the success envelope. Nest
 * hands each handler's result to `reply`; failures do not come this way (ApiExceptionFilter
 * writes their envelope itself), nor do responses a handler writes itself (`@Res()`).
 *
 * A global interceptor did this before. Nest runs interceptors through RxJS observables and
 * AsyncResource-bound callbacks on every request, which was a quarter of the server's CPU under
 * get_send_sms load (bench:api); here it is one function call.
 */
export class EnvelopeExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    // Nest's own exception filter also replies through here, with an error status: it is never
    // reached behind ApiExceptionFilter, and what it would say is not a result to wrap.
    const isFailure = statusCode !== undefined && statusCode >= Number(HttpStatus.BAD_REQUEST);
    if (!isFailure && body instanceof Replayed) {
      response.setHeader(REPLAYED_HEADER, 'true');
      return super.reply(response, body.envelope, body.status);
    }
    if (!isFailure && body instanceof WithStatus) {
      return super.reply(response, successEnvelope(body.result), body.status);
    }
    return super.reply(response, isFailure ? body : successEnvelope(body), statusCode);
  }
}
