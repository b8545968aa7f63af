import { Logger } from '@nestjs/common';
import { pollEvery } from './poller';

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('pollEvery', () => {
  const logger = new Logger('poller.spec');
  let errors: jest.SpyInstance;

  beforeEach(() => {
    jest.useFakeTimers();
    errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    errors.mockRestore();
  });

  it('runs a round at once, then one interval after each round ends', async () => {
    let rounds = 0;
    const stop = pollEvery(
      1000,
      () => {
        rounds += 1;
        return Promise.resolve();
      },
      logger,
    );

    await jest.advanceTimersByTimeAsync(0);
    expect(rounds).toBe(1);
    await jest.advanceTimersByTimeAsync(999);
    expect(rounds).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(rounds).toBe(2);
    await stop();
  });

  it('never starts a round while the previous one is still running', async () => {
    const slow = gate();
    let running = 0;
    let mostAtOnce = 0;
    const stop = pollEvery(
      10,
      async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await slow.opened;
        running -= 1;
      },
      logger,
    );

    await jest.advanceTimersByTimeAsync(1000);
    slow.open();
    await jest.advanceTimersByTimeAsync(100);
    await stop();

    expect(mostAtOnce).toBe(1);
  });

  it('stops only once the round in progress has ended, and runs no round after', async () => {
    const slow = gate();
    let rounds = 0;
    let roundEnded = false;
    const stop = pollEvery(
      10,
      async () => {
        rounds += 1;
        await slow.opened;
        roundEnded = true;
      },
      logger,
    );
    await jest.advanceTimersByTimeAsync(0);

    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);

    slow.open();
    await stopping;
    expect(roundEnded).toBe(true);
    await jest.advanceTimersByTimeAsync(1000);
    expect(rounds).toBe(1);
  });

  it('tells a round that the poller is stopping, so that it can end early', async () => {
    const slow = gate();
    const seen: boolean[] = [];
    const stop = pollEvery(
      10,
      async (active) => {
        seen.push(active());
        await slow.opened;
        seen.push(active());
      },
      logger,
    );
    await jest.advanceTimersByTimeAsync(0);

    const stopping = stop();
    slow.open();
    await stopping;

    expect(seen).toEqual([true, false]);
  });

  it('logs a round that throws and keeps polling', async () => {
    let rounds = 0;
    const stop = pollEvery(
      10,
      () => {
        rounds += 1;
        return Promise.reject(new Error('database is gone'));
      },
      logger,
    );

    await jest.advanceTimersByTimeAsync(10);
    await stop();

    expect(rounds).toBe(2);
    expect(errors).toHaveBeenCalledWith('A polling round failed: database is gone');
  });
});
