import { Injectable, Module } from '@nestjs/common';

/**
 * When the dispatch loop of this process last went round: it beats at each turn and between
 * the batches and pages of a busy one; readiness reads it to tell a stuck loop. It lives here,
 * below both, so that the health checks need nothing from the dispatch.
 */
@Injectable()
export class WorkerHeartbeat {
  private beatAt: number | null = null;

  beat(): void {
    this.beatAt = Date.now();
  }

  /** Once the loop has stopped, this process runs no worker any more. */
  stop(): void {
    this.beatAt = null;
  }

  /** Milliseconds since the last beat; null when no dispatch loop runs in this process. */
  ageMs(now = Date.now()): number | null {
    return this.beatAt === null ? null : now - this.beatAt;
  }
}

/** Imported by the module that beats (the dispatch) and the one that reads (health). */
@Module({ providers: [WorkerHeartbeat], exports: [WorkerHeartbeat] })
export class WorkerHeartbeatModule {}
