import { toText } from './php-values';

/**
 * What one render of a sandboxed template may spend and build (docs/dispatch.md#texts): its time,
 * loop rounds and output so far, the size every value it builds is held to; and text as Twig
 * prints it. The sandbox and its PHP filters both check their values here.
 */

/** A text, list or mapping a template builds holds at most this many characters and items. */
export const MAX_VALUE_WEIGHT = 100_000;

/** Why a template is refused or a render stops: a sentence for the user, without a full stop. */
export class TemplateProblem extends Error {}

/** What one render has used so far. Renders are synchronous: one is active at a time. */
export class RenderBudget {
  iterations = 0;
  produced = 0;
  private readonly deadline: number;

  constructor(private readonly timeLimitMs: number) {
    this.deadline = Date.now() + timeLimitMs;
  }

  checkTime(): void {
    if (Date.now() > this.deadline) {
      throw new TemplateProblem(`The template takes longer than ${this.timeLimitMs} ms to render`);
    }
  }
}

let activeBudget: RenderBudget | null = null;

export function budget(): RenderBudget {
  if (activeBudget === null) {
    throw new TemplateProblem('The template is rendered outside of its sandbox');
  }
  return activeBudget;
}

/** Runs one render with a budget of its own, the budget of the render around it kept. */
export function withinBudget<T>(timeLimitMs: number, render: () => T): T {
  const previous = activeBudget;
  activeBudget = new RenderBudget(timeLimitMs);
  try {
    return render();
  } finally {
    activeBudget = previous;
  }
}

/** Checks the size of a value just built (array or hash literal, filter or function result). */
export function weigh(value: unknown): unknown {
  if (weightOf(value, new Map(), new Set()) > MAX_VALUE_WEIGHT) {
    tooLarge();
  }
  return value;
}

export function tooLarge(): never {
  throw new TemplateProblem(
    `The template builds a text or a list larger than ${MAX_VALUE_WEIGHT} characters or items`,
  );
}

/** Characters of texts and items of lists, counted as often as they are reached. */
export function weightOf(value: unknown, known: Map<object, number>, open: Set<object>): number {
  if (typeof value === 'string' || value instanceof String) {
    return Math.max(1, value.length);
  }
  if (value === null || typeof value !== 'object') {
    return 1;
  }
  const measured = known.get(value);
  if (measured !== undefined) {
    return measured;
  }
  if (open.has(value)) {
    return 1;
  }
  open.add(value);
  let weight = 1;
  for (const key of Object.keys(value)) {
    weight += weightOf((value as Record<string, unknown>)[key], known, open);
    if (weight > MAX_VALUE_WEIGHT) {
      break;
    }
  }
  open.delete(value);
  known.set(value, weight);
  return weight;
}

/** Text as Twig prints it (PHP's conversions); lists, hashes and dates cannot be printed. */
export function printable(value: unknown): string {
  if (value === undefined || value === null) {
    return '';
  }
  if (value instanceof String) {
    return value.valueOf();
  }
  if (value instanceof Date) {
    throw new TemplateProblem(
      "The template prints a date: format it with the date filter, as in date()|date('d/m/Y')",
    );
  }
  if (typeof value === 'object') {
    throw new TemplateProblem('The template prints a list or a mapping: print one of its items');
  }
  return toText(value);
}
