import { Injectable, Module } from '@nestjs/common';

/**
 * Tells the dispatch worker of this process that a message due now was just committed, so that
 * it dispatches it at once instead of at its next poll. Only a worker inline in the API process
 * hears it: worker processes keep polling (DISPATCH_POLL_MS). The webhook deliverer keeps one of
 * its own, told when a request ends.
 */
@Injectable()
export class DispatchSignal {
  private pending = false;
  private wake: (() => void) | null = null;

  /** Wakes the waiting worker, or the next wait if it is busy now. */
  notify(): void {
    if (this.wake) {
      this.wake();
    } else {
      this.pending = true;
    }
  }

  /**
   * Resolves after `ms`, at the first notification, or once `abort` fires; at once if a
   * notification came since the last wait. One waiter at a time: the worker's dispatch loop.
   */
  wait(ms: number, abort: AbortSignal): Promise<void> {
    if (this.pending || abort.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort.removeEventListener('abort', done);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      abort.addEventListener('abort', done);
      this.wake = done;
    });
  }
}

/** Imported by the modules that notify (scheduled messages) and that wait (the dispatch). */
@Module({ providers: [DispatchSignal], exports: [DispatchSignal] })
export class DispatchSignalModule {}
