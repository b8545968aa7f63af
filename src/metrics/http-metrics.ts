import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { MetricsService, UNMATCHED_ROUTE } from './metrics.service';

/**
 * Times every request to its response's end and counts it under the template of the route that
 * answered (`/api/scheduled/:id`), which Express knows by then: the raw URL would give a label
 * per id. Mounted with `app.use` ahead of every route (createApp): a Nest middleware would be a
 * catch-all route of its own, matched against each path, and an interceptor an RxJS pipeline
 * per request (see EnvelopeExpressAdapter); this is what the 5 % budget of bench:api allows.
 */
export function measureRequests(metrics: MetricsService): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = performance.now();
    response.once('finish', () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      metrics.observeRequest(
        // Nest mounts middlewares (the request log's) as catch-all routes, `/{*path}`: a request
        // whose last route is one of them matched none of ours, which have no wildcard.
        typeof route === 'string' && !route.includes('{*') ? route : UNMATCHED_ROUTE,
        request.method,
        response.statusCode,
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
