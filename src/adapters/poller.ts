import { Logger } from '@nestjs/common';

/**
 * One round of a poller. `active` turns false once the poller is being stopped, so that a
 * round with much to do can end early instead of holding the stop up.
 */
export type PollRound = (active: () => boolean) => Promise<void>;

/**
 * Runs `round` now, then again `intervalMs` after each round ends, so that two rounds never
 * overlap however slow the provider is, until the returned function is called. That function
 * resolves once the round in progress, if any, has ended: nothing a round reports is cut off
 * half-way. A round that throws is logged and the next one runs as planned.
 */
export function pollEvery(
  intervalMs: number,
  round: PollRound,
  logger: Logger,
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const active = () => !stopped;

  const run = () => {
    timer = undefined;
    running = round(active)
      .catch((error: unknown) => {
        logger.error(
          `A polling round failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      })
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(run, intervalMs);
        }
      });
  };
  run();

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
