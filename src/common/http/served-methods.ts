import type { Request } from 'express';
import { METHODS } from 'node:http';

/** What this code reads of a layer of Express's router (the `router` package). */
interface RouterLayer {
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): unknown;
}

/**
 * The methods that the application's routes serve at the request's path, upper case, in the
 * order the routes were declared; none for a path no route serves. Routes that take any method
 * (provider callbacks, middleware mounted on every path) are left out: no method is missing at
 * them, and the middleware would make every path look served.
 */
export function servedMethods(request: Request): string[] {
  const router = (
    request.app as unknown as { router?: { stack?: readonly RouterLayer[] } } | undefined
  )?.router;
  const served = new Set<string>();
  for (const layer of router?.stack ?? []) {
    const methods = layer.route ? Object.keys(layer.route.methods) : [];
    const anyMethod = methods.includes('_all') || methods.length >= METHODS.length;
    if (methods.length > 0 && !anyMethod && layer.match(request.path)) {
      methods.forEach((method) => served.add(method.toUpperCase()));
    }
  }
  return [...served];
}
