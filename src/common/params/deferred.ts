import { ApiError } from '../errors/api-error';

/**
 * A parameter parsed at the edge whose rule comes, in its operation's order, after a rule only
 * the service can check: one that needs the database, the user's settings or an upload's content
 * (post_scheduled checks that the contacts are the caller's before it reads `id_phone`).
 *
 * Each operation's parameters are parsed once into a typed input (`<feature>.params.ts`), and a
 * client sees only the first error in the order of docs/api.md. Parameters whose rules come
 * before the operation's first such rule are parsed outright: their error is thrown at the edge,
 * where it is the first one anyway. Those after it are parsed there too, but their error, if any,
 * is kept here and thrown only when the service reaches that rule with `get()`, so a rule that
 * comes first still wins.
 */
export class Deferred<T> {
  private constructor(
    private readonly parsed: { readonly value: T } | { readonly error: ApiError },
  ) {}

  /** Runs `parse` now; an ApiError it throws waits for `get()`, any other error is a bug. */
  static parse<T>(parse: () => T): Deferred<T> {
    try {
      return new Deferred<T>({ value: parse() });
    } catch (error) {
      if (error instanceof ApiError) {
        return new Deferred<T>({ error });
      }
      throw error;
    }
  }

  /** The parsed value, or the parameter's error, thrown now that its rule is reached. */
  get(): T {
    if ('error' in this.parsed) {
      throw this.parsed.error;
    }
    return this.parsed.value;
  }
}
