import { Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { WorkerHeartbeat } from '../common/worker-heartbeat';
import { AppConfig } from '../config/configuration';

/** Polls an idle loop may miss (a busy moment of the event loop) before it counts as stuck. */
const POLLS = 5;

/**
 * Whether the dispatch loop of this process still goes round. It beats at every turn (each
 * DISPATCH_POLL_MS when idle) and between the batches of a busy one, so a few polls without a
 * beat mean it is stuck; but one batch may take a while against a slow provider, so the loop is
 * only called stuck past WORKER_TIMEOUT_MS as well, when the other workers would call it dead.
 * A process without a loop (WORKER=off, or its SQLite database dispatched by another process)
 * has nothing to check.
 */
@Injectable()
export class WorkerHealthIndicator {
  readonly maxAgeMs: number;

  constructor(
    private readonly indicator: HealthIndicatorService,
    private readonly heartbeat: WorkerHeartbeat,
    config: AppConfig,
  ) {
    this.maxAgeMs = Math.max(POLLS * config.dispatch.pollMs, config.dispatch.workerTimeoutMs);
  }

  isBeating<const Key extends string>(key: Key): HealthIndicatorResult<Key> {
    const check = this.indicator.check(key);
    const ageMs = this.heartbeat.ageMs();
    if (ageMs === null) {
      return check.up({ running: false });
    }
    const beat = { running: true, heartbeatAgeMs: ageMs, maxAgeMs: this.maxAgeMs };
    return ageMs <= this.maxAgeMs ? check.up(beat) : check.down(beat);
  }
}
