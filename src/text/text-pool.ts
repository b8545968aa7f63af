import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { extname, join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { AppConfig } from '../config/configuration';
import { RecipientInput, renderTooSlow, TextOutcome } from './recipient-text';
import type { MatchResult, MatchTask, RenderItem, RenderTask, TextTask } from './text.worker';

/**
 * The threads' code is this file's sibling: compiled JavaScript under `dist/`, or the TypeScript
 * source when this file runs from source (tests, benchmarks), which a thread then loads through
 * ts-node's transpile-only hook.
 */
const EXTENSION = extname(__filename);
const WORKER_FILE = join(__dirname, `text.worker${EXTENSION}`);
const EXEC_ARGV =
  EXTENSION === '.ts' ? ['--require', 'ts-node/register/transpile-only'] : undefined;

/** A thread left idle this long exits; the next task starts one again. */
const IDLE_TIMEOUT_MS = 30_000;

/**
 * What a task may take beyond its items' own limits: compiling each template, copying the page
 * in and out, a thread slowed down by a loaded machine.
 */
const TASK_GRACE_MS = 1_000;

/**
 * A task no thread has started by then is given up: a thread that cannot load its code reports
 * it on the pool, but leaves the task waiting.
 */
const START_TIMEOUT_MS = 60_000;

/** The task ran past its deadline and its thread was stopped. */
export class TaskDeadlineExceeded extends Error {}

type Task<T extends TextTask> = Omit<T, 'started'>;

/**
 * Renders templates and evaluates conditions in a small pool of worker threads, a page of
 * recipients per task, so that a slow template never holds the event loop that serves the API.
 *
 * Each render (and each contact's test of a condition with `matches`) has its own limit inside
 * the thread, which stops it where it stands. Behind it, each task has a deadline of twice its
 * items' limits plus a grace, counted from when a thread starts it: a task past it is aborted,
 * which terminates its thread (the pool starts another), and its items are run again one per
 * task, so that only the ones that cannot finish fail.
 */
@Injectable()
export class TextPool implements OnApplicationShutdown {
  private readonly logger = new Logger(TextPool.name);
  private piscina: Piscina | null = null;
  /** The code the threads run. */
  protected readonly threadFile: string = WORKER_FILE;
  protected readonly startTimeoutMs: number = START_TIMEOUT_MS;

  constructor(private readonly config: AppConfig) {}

  /** Renders `items` (each naming its template in `sources`); one outcome per item, in order. */
  render(sources: string[], items: RenderItem[], signal?: AbortSignal): Promise<TextOutcome[]> {
    const timeLimitMs = this.config.text.templateTimeoutMs;
    return this.inChunks(
      items,
      (chunk) => {
        const task: Task<RenderTask> = { kind: 'render', timeLimitMs, sources, items: chunk };
        const deadlineMs = TASK_GRACE_MS * (1 + sources.length) + 2 * timeLimitMs * chunk.length;
        return this.run<TextOutcome[]>(task, deadlineMs, signal);
      },
      { reason: renderTooSlow(timeLimitMs) },
    );
  }

  /**
   * Tests each contact against each condition. A contact whose test cannot finish matches no
   * condition, as when a condition fails for it.
   */
  async match(
    conditions: string[],
    contacts: RecipientInput[],
    timeZone: string,
    signal?: AbortSignal,
  ): Promise<MatchResult> {
    const timeLimitMs = this.config.text.conditionTimeoutMs;
    let errors: Array<string | null> = conditions.map(() => null);
    const matched = await this.inChunks(
      contacts,
      async (chunk) => {
        const task: Task<MatchTask> = {
          kind: 'match',
          timeZone,
          timeLimitMs,
          conditions,
          contacts: chunk,
        };
        const deadlineMs = TASK_GRACE_MS + 2 * timeLimitMs * conditions.length * chunk.length;
        const result = await this.run<MatchResult>(task, deadlineMs, signal);
        errors = result.errors;
        return result.matched;
      },
      [],
    );
    return { errors, matched };
  }

  async onApplicationShutdown(): Promise<void> {
    const piscina = this.piscina;
    this.piscina = null;
    await piscina?.destroy();
  }

  /** Piscina is loaded with the first task: most processes never run one. */
  private async pool(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    if (this.piscina === null) {
      this.piscina = new Piscina({
        filename: this.threadFile,
        execArgv: EXEC_ARGV,
        minThreads: 0,
        maxThreads: this.config.text.threads,
        idleTimeout: IDLE_TIMEOUT_MS,
      });
      // Without a listener the pool would throw this out of the process.
      this.piscina.on('error', (error: unknown) => {
        this.logger.error({ err: error }, 'A text thread failed; the next task starts another.');
      });
    }
    return this.piscina;
  }

  /**
   * Runs `items` split into one chunk per thread; a chunk past its deadline is run again one
   * item per task, and an item past its own deadline gets `timedOut`.
   */
  private async inChunks<I, O>(
    items: readonly I[],
    run: (chunk: I[]) => Promise<O[]>,
    timedOut: O,
  ): Promise<O[]> {
    const size = Math.max(1, Math.ceil(items.length / this.config.text.threads));
    const chunks: I[][] = [];
    for (let start = 0; start < items.length; start += size) {
      chunks.push(items.slice(start, start + size));
    }
    const results = await Promise.all(
      chunks.map(async (chunk) => {
        try {
          return await run(chunk);
        } catch (error) {
          if (!(error instanceof TaskDeadlineExceeded) || chunk.length === 1) {
            throw error;
          }
          this.logger.warn(
            `A text task of ${chunk.length} recipients ran past its deadline: its thread was stopped, and its recipients are handled one at a time.`,
          );
        }
        const outcomes: O[] = [];
        for (const item of chunk) {
          try {
            outcomes.push(...(await run([item])));
          } catch (error) {
            if (!(error instanceof TaskDeadlineExceeded)) {
              throw error;
            }
            outcomes.push(timedOut);
          }
        }
        return outcomes;
      }),
    );
    return results.flat();
  }

  /**
   * Runs one task; its deadline starts when a thread takes it, so that starting a thread (slow
   * from TypeScript sources) does not count.
   */
  private async run<R>(task: Task<TextTask>, deadlineMs: number, signal?: AbortSignal): Promise<R> {
    const { port1: started, port2: startedPort } = new MessageChannel();
    const deadline = new AbortController();
    const unstarted = new AbortController();
    let timer = setTimeout(() => unstarted.abort(), this.startTimeoutMs);
    started.once('message', () => {
      clearTimeout(timer);
      timer = setTimeout(() => deadline.abort(), deadlineMs);
    });
    const signals = [deadline.signal, unstarted.signal, ...(signal ? [signal] : [])];
    try {
      const pool = await this.pool();
      return (await pool.run(
        { ...task, started: startedPort },
        { transferList: [startedPort], signal: AbortSignal.any(signals) },
      )) as R;
    } catch (error) {
      if (deadline.signal.aborted) {
        throw new TaskDeadlineExceeded(`The text task ran past its ${deadlineMs} ms deadline.`);
      }
      if (unstarted.signal.aborted) {
        throw new Error(
          `No text thread started the task within ${this.startTimeoutMs} ms: the log says why.`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      started.close();
    }
  }
}
