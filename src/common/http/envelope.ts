/** The JSON body of every API response, keys in this order (docs/api.md#envelope). */
export interface Envelope {
  error: number;
  message: string | null;
  response: unknown;
  next: string | null;
  prev: string | null;
}

/** What a handler returns when its result has `next` / `prev` links. */
export class Paged<T> {
  constructor(
    readonly items: T[],
    readonly next: string | null,
    readonly prev: string | null,
  ) {}
}

/**
 * What a handler returns when its success status depends on the outcome (an insert that finds
 * the entry already there answers 200 rather than 201); the adapter replies with `status`.
 */
export class WithStatus<T> {
  constructor(
    readonly result: T,
    readonly status: number,
  ) {}
}

/** The header of a replayed answer, `true`. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * A kept answer given again (an idempotent request repeated, docs/idempotency.md): the adapter
 * replies with its status and envelope as they were, and says so in `Idempotent-Replayed`.
 */
export class Replayed {
  constructor(
    readonly status: number,
    readonly envelope: Envelope,
  ) {}
}

export function successEnvelope(result: unknown): Envelope {
  if (result instanceof Paged) {
    return {
      error: 0,
      message: null,
      response: result.items,
      next: result.next,
      prev: result.prev,
    };
  }
  return { error: 0, message: null, response: result ?? null, next: null, prev: null };
}

export function errorEnvelope(code: number, message: string): Envelope {
  return { error: code, message, response: null, next: null, prev: null };
}
