import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config/configuration';

/**
 * With METRICS_TOKEN set, `/metrics` requires `Authorization: Bearer <token>`: the metrics
 * tell how much a deployment sends and through which providers. Compared in constant time.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(config: AppConfig) {
    this.expected = config.metrics.token === null ? null : digest(config.metrics.token);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.expected === null) {
      return true;
    }
    const http = context.switchToHttp();
    const given = /^Bearer +(\S+) *$/i.exec(http.getRequest<Request>().headers.authorization ?? '');
    if (given && timingSafeEqual(digest(given[1]), this.expected)) {
      return true;
    }
    http.getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    throw new UnauthorizedException();
  }
}

/** Digests have one length whatever the token's, as `timingSafeEqual` requires. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
