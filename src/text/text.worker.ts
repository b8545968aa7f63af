import type { MessagePort } from 'node:worker_threads';
import { CompiledCondition, compileCondition } from './condition';
import { decodeData, RecipientInput, TextOutcome, transliterated } from './recipient-text';
import { CompiledTemplate, compileTemplate } from './template';

/*
 * What the text pool's threads run (see text-pool.ts): a page of recipients per task, rendered
 * or tested against conditions away from the main thread, whose event loop serves the API.
 */

/** One recipient whose text is a template. */
export interface RenderItem {
  /** Index of its template in the task's `sources`. */
  source: number;
  /** Its `RenderInput`, as JSON. */
  input: string;
  /** Whether its message has medias: an empty text is then allowed. */
  withMedias: boolean;
}

/** What rendering one recipient needs beyond the template, stored with the queued recipient. */
export interface RenderInput extends RecipientInput {
  /** Whether the rendered text is transliterated to the GSM alphabet. */
  gsm: boolean;
}

export interface RenderTask {
  kind: 'render';
  /** Told when the task starts running, so that its deadline leaves out the wait for a thread. */
  started: MessagePort;
  timeLimitMs: number;
  sources: string[];
  items: RenderItem[];
}

export interface MatchTask {
  kind: 'match';
  started: MessagePort;
  /** The zone of "today" in conditions. */
  timeZone: string;
  /** How long a condition with `matches` may take for one contact. */
  timeLimitMs: number;
  conditions: string[];
  contacts: RecipientInput[];
}

export interface MatchResult {
  /** Per condition, why it can select no contact, or null. */
  errors: Array<string | null>;
  /** Per contact, the indexes of the conditions it satisfies. */
  matched: number[][];
}

export type TextTask = RenderTask | MatchTask;

/** Compiled templates and conditions kept per thread: a campaign's pages share theirs. */
const CACHE_SIZE = 16;
const templates = new Map<string, CompiledTemplate>();
const conditions = new Map<string, CompiledCondition>();

function cached<T>(cache: Map<string, T>, key: string, compile: () => T): T {
  const found = cache.get(key);
  if (found !== undefined) {
    // Most recently used last: the first one is the one to evict.
    cache.delete(key);
    cache.set(key, found);
    return found;
  }
  const compiled = compile();
  cache.set(key, compiled);
  if (cache.size > CACHE_SIZE) {
    cache.delete(cache.keys().next().value as string);
  }
  return compiled;
}

export default function runTextTask(task: TextTask): TextOutcome[] | MatchResult {
  task.started.postMessage(null);
  task.started.close();
  return task.kind === 'render' ? render(task) : match(task);
}

function render(task: RenderTask): TextOutcome[] {
  const compiled = task.sources.map((source) =>
    cached(templates, `${task.timeLimitMs}:${source}`, () =>
      compileTemplate(source, { timeLimitMs: task.timeLimitMs }),
    ),
  );
  return task.items.map((item) => {
    const input = JSON.parse(item.input) as RenderInput;
    const rendered = compiled[item.source].render({
      contact: decodeData(input.data),
      contact_metas: input.metas,
    });
    if (!rendered.ok) {
      return { reason: rendered.reason };
    }
    const outcome = transliterated(rendered.text, input.gsm, 'The rendered text');
    if ('text' in outcome && !outcome.text.trim() && !item.withMedias) {
      return { reason: 'The rendered text is empty.' };
    }
    return outcome;
  });
}

function match(task: MatchTask): MatchResult {
  const compiled = task.conditions.map((expression) =>
    cached(conditions, `${task.timeZone}:${task.timeLimitMs}:${expression}`, () =>
      compileCondition(expression, {
        timeZone: task.timeZone,
        patternTimeoutMs: task.timeLimitMs,
      }),
    ),
  );
  return {
    errors: compiled.map((condition) => condition.error),
    matched: task.contacts.map((contact) => {
      const data = decodeData(contact.data);
      return compiled.flatMap((condition, index) =>
        condition.error === null && condition.matches(data, contact.metas) ? [index] : [],
      );
    }),
  };
}
