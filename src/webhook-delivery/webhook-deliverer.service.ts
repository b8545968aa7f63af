import { Injectable, Logger } from '@nestjs/common';
import { setImmediate } from 'node:timers/promises';
import {
  describeNetworkError,
  excerpt,
  formatDuration,
  readBody,
} from '../common/net/http-answers';
import { DispatchSignal } from '../common/dispatch-signal';
import { OutboundPolicy, outboundRefusalOf } from '../common/net/outbound-policy';
import { utcDate, utcString } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { WebhookFormat } from '../events/webhook-events';
import { encodeDelivery, WireRequest } from '../events/webhook-wire';
import { MetricsService } from '../metrics/metrics.service';
import { retryDelayMs } from './backoff';
import {
  AttemptOutcome,
  AttemptRecord,
  ClaimedDelivery,
  ClaimRequest,
  DueWebhook,
  WebhookDeliveryRepository,
} from './webhook-delivery.repository';

/** Requests in flight at once to one origin (scheme, host, port), per process. */
export const PER_ORIGIN = 8;

/** Requests in flight at once, per process. */
export const OVERALL = 64;

/**
 * Deliveries of an origin claimed ahead, in waves of PER_ORIGIN: one claim feeds several waves
 * of requests, and a claim's lease covers its last wave.
 */
const WAVES_CLAIMED = 4;

/** Webhooks with due deliveries looked at per turn. */
const WEBHOOKS_PER_TURN = 500;

/**
 * Beyond its waves' timeouts, how long a claim holds a delivery. A worker that dies leaves its
 * claims due again once their lease ends: the delivery is then attempted again, with the same id.
 */
const LEASE_MARGIN_MS = 10_000;

/** How often delivered and failed deliveries older than WEBHOOK_LOG_DAYS are removed. */
const PURGE_EVERY_MS = 3_600_000;
const PURGED_PER_STATEMENT = 1000;

/** Bytes of an endpoint's answer read: enough to quote in the log; the rest is dropped. */
const ANSWER_BYTES = 16 * 1024;

/** A claimed delivery waiting for, or holding, a request slot of its origin. */
interface Attempt {
  delivery: ClaimedDelivery;
  webhook: DueWebhook;
  /** When the claim ends (ms): after it, another worker may have the delivery. */
  leaseUntil: number;
}

/** An origin's requests in flight and the claimed deliveries waiting for a slot. */
interface Lane {
  active: number;
  waiting: Attempt[];
}

/** What an endpoint answered, or why there is no answer. */
type Answer =
  { status: number; body: string; location: string | null } | { failure: string; final: boolean };

/**
 * Delivers webhook events (docs/api.md#webhook-deliveries): claims due deliveries per origin,
 * posts them with bounded concurrency per origin and overall, so that a slow or dead endpoint
 * holds only its own slots, and records each outcome: delivered on a 2xx; a network error, a
 * timeout, 408, 429 or 5xx retried with backoff until WEBHOOK_MAX_AGE_HOURS after the event;
 * anything else failed at once, a 410 disabling the webhook. Outcomes are recorded in batches
 * at each turn; a process killed before recording leaves its claims to be attempted again.
 */
@Injectable()
export class WebhookDeliverer {
  private readonly logger = new Logger(WebhookDeliverer.name);
  private readonly lanes = new Map<string, Lane>();
  private active = 0;
  private finished: AttemptRecord[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  /** Wakes an idle `run` as soon as a request ends: its slot can take the next delivery. */
  private readonly ended = new DispatchSignal();
  private lastPurge = 0;
  /** Set while `run` stops: the requests in flight end, no waiting one starts. */
  private draining = false;

  constructor(
    private readonly repository: WebhookDeliveryRepository,
    private readonly outbound: OutboundPolicy,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Delivers until `stop` aborts, then waits for the requests in flight and records them. When
   * nothing is due it looks again after `idleMs`, or as soon as a request ends.
   */
  async run(stop: AbortSignal, idleMs: number): Promise<void> {
    const clock = () => new Date();
    while (!stop.aborted) {
      let progressed = false;
      try {
        progressed = (await this.turn(clock)) > 0;
      } catch (error) {
        // A database restart must not stop the deliveries: the next turn tries again.
        this.logger.error({ err: error }, `Webhook deliveries: ${(error as Error).message}`);
      }
      if (progressed) {
        await setImmediate();
      } else {
        await this.ended.wait(idleMs, stop);
      }
    }
    // What waits for a slot is handed back, due at once for the workers that go on.
    this.draining = true;
    const waiting = [...this.lanes.values()].flatMap((lane) => lane.waiting.splice(0));
    try {
      await this.repository.release(
        waiting.map(({ delivery }) => delivery),
        utcString(clock()),
      );
    } catch (error) {
      // Nothing is lost: their leases end, and they are due again then.
      this.logger.warn({ err: error }, 'Webhook deliveries waiting could not be handed back.');
    }
    try {
      await this.settle(clock);
    } catch (error) {
      // The worker's shutdown goes on: their leases end, and they are attempted again then.
      this.logger.warn({ err: error }, 'Webhook deliveries in flight could not be recorded.');
    } finally {
      this.draining = false;
    }
  }

  /**
   * Attempts every delivery due at `now` and records the outcomes as of `now`, repeating until
   * none is due at `now`: the deliveries as a worker turn makes them, on a clock the caller
   * sets (the retries of a failed attempt are due later). The number of attempts made.
   */
  async deliverDue(now: Date): Promise<number> {
    const clock = () => now;
    let attempts = 0;
    for (;;) {
      const claimed = await this.turn(clock);
      await this.settle(clock);
      if (claimed === 0) {
        return attempts;
      }
      attempts += claimed;
    }
  }

  /** Records what ended, removes old log rows when it is time, claims and starts requests. */
  private async turn(clock: () => Date): Promise<number> {
    const recorded = await this.recordFinished(clock());
    await this.purgeOld(clock());
    const claimed = await this.claim(clock());
    this.pump(clock);
    return claimed + recorded;
  }

  /** Waits for the requests in flight, then records them. */
  private async settle(clock: () => Date): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.all(this.inFlight);
    }
    await this.recordFinished(clock());
  }

  private async recordFinished(now: Date): Promise<number> {
    if (this.finished.length === 0) {
      return 0;
    }
    const records = this.finished;
    this.finished = [];
    try {
      await this.repository.record(records, utcString(now));
    } catch (error) {
      // Kept for the next turn; their deliveries stay claimed by this live process meanwhile.
      this.finished = records.concat(this.finished);
      throw error;
    }
    return records.length;
  }

  /** Claims, for each origin with room, due deliveries of its webhooks. */
  private async claim(now: Date): Promise<number> {
    const webhooks = await this.repository.dueWebhooks(utcString(now), WEBHOOKS_PER_TURN);
    const byOrigin = new Map<string, DueWebhook[]>();
    for (const webhook of webhooks) {
      const origin = originOf(webhook.url);
      byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), webhook]);
    }
    const requests: ClaimRequest[] = [];
    const leases: number[] = [];
    const timeoutMs = this.config.webhooks.timeoutMs;
    for (const [origin, hooks] of byOrigin) {
      const lane = this.lanes.get(origin);
      const held = lane ? lane.active + lane.waiting.length : 0;
      const room = PER_ORIGIN * WAVES_CLAIMED - held;
      if (room <= 0) {
        continue;
      }
      const lease = now.getTime() + WAVES_CLAIMED * timeoutMs + LEASE_MARGIN_MS;
      requests.push({
        webhookIds: hooks.map((hook) => Number(hook.id)),
        limit: room,
        leaseUntil: utcString(new Date(lease)),
      });
      leases.push(lease);
    }
    if (requests.length === 0) {
      return 0;
    }
    const claimed = await this.repository.claim(requests, utcString(now));
    const hooksById = new Map(webhooks.map((hook) => [Number(hook.id), hook]));
    const leaseByHook = new Map(
      requests.flatMap((request, index) => request.webhookIds.map((id) => [id, leases[index]])),
    );
    for (const delivery of claimed) {
      const webhook = hooksById.get(delivery.id_webhook);
      if (!webhook) {
        continue;
      }
      const origin = originOf(webhook.url);
      const lane = this.lanes.get(origin) ?? { active: 0, waiting: [] };
      lane.waiting.push({
        delivery,
        webhook,
        leaseUntil: leaseByHook.get(delivery.id_webhook) ?? 0,
      });
      this.lanes.set(origin, lane);
    }
    return claimed.length;
  }

  /** Starts what the slots allow, origins taking turns. */
  private pump(clock: () => Date): void {
    if (this.draining) {
      return;
    }
    for (const [origin, lane] of [...this.lanes]) {
      while (lane.waiting.length > 0 && lane.active < PER_ORIGIN && this.active < OVERALL) {
        const attempt = lane.waiting.shift()!;
        if (clock().getTime() >= attempt.leaseUntil) {
          // Its claim has ended: another worker may be delivering it. It is due again, as is.
          continue;
        }
        lane.active += 1;
        this.active += 1;
        const startedAt = utcString(clock());
        const started = performance.now();
        const request: Promise<void> = this.attempt(attempt, clock)
          .catch((error: unknown): AttemptOutcome => {
            // A delivery that cannot even be written (a stored row gone bad) must not come back
            // at every lease: it fails, and the log says where to look.
            this.logger.error(
              { err: error },
              `Webhook delivery ${attempt.delivery.id} could not be attempted.`,
            );
            return {
              id: attempt.delivery.id,
              attempts: attempt.delivery.attempts,
              status: 'failed',
              httpStatus: null,
              error: 'The delivery could not be prepared; the server log holds the details.',
              answer: null,
            };
          })
          .then((outcome) => {
            this.finished.push({
              ...outcome,
              startedAt,
              durationMs: performance.now() - started,
            });
          })
          .finally(() => {
            lane.active -= 1;
            this.active -= 1;
            this.inFlight.delete(request);
            if (lane.active === 0 && lane.waiting.length === 0) {
              this.lanes.delete(origin);
            }
            this.pump(clock);
            this.ended.notify();
          });
        this.inFlight.add(request);
      }
      // The next turn starts with the origins that did not start anything now.
      if (this.lanes.get(origin) === lane) {
        this.lanes.delete(origin);
        if (lane.active > 0 || lane.waiting.length > 0) {
          this.lanes.set(origin, lane);
        }
      }
    }
  }

  private async attempt(
    { delivery, webhook }: Attempt,
    clock: () => Date,
  ): Promise<AttemptOutcome> {
    const request = encodeDelivery(
      webhook.format as WebhookFormat,
      webhook.secret,
      {
        id: delivery.event_id,
        type: delivery.event_type,
        at: utcDate(delivery.event_at),
        payload: JSON.parse(delivery.payload) as Record<string, unknown>,
      },
      clock(),
    );
    const answer = await this.post(webhook.url, request);
    const record = this.outcome(delivery, webhook, answer, clock());
    this.metrics.countWebhookAttempt(
      record.status === 'pending' ? 'retry' : record.status,
      record.status === 'delivered'
        ? Math.max(0, (clock().getTime() - utcDate(delivery.event_at).getTime()) / 1000)
        : null,
    );
    return record;
  }

  private async post(url: string, request: WireRequest): Promise<Answer> {
    const timeoutMs = this.config.webhooks.timeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await this.outbound.fetch(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal,
      });
      const body = await readBody(response, ANSWER_BYTES);
      return { status: response.status, body, location: response.headers.get('location') };
    } catch (error) {
      const refusal = outboundRefusalOf(error);
      if (refusal) {
        return { failure: `Not sent: ${refusal.message}`, final: true };
      }
      if (signal.aborted) {
        return {
          failure: `No answer within ${formatDuration(timeoutMs)} (WEBHOOK_TIMEOUT_MS).`,
          final: false,
        };
      }
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? cause.code : undefined;
      return {
        failure: `Could not reach the endpoint (${describeNetworkError(code)}).`,
        final: false,
      };
    }
  }

  /** The record of an attempt that got `answer`, at `now`. */
  private outcome(
    delivery: ClaimedDelivery,
    webhook: DueWebhook,
    answer: Answer,
    now: Date,
  ): AttemptOutcome {
    if ('failure' in answer) {
      const base = { id: delivery.id, attempts: delivery.attempts, answer: null };
      return answer.final
        ? { ...base, status: 'failed', httpStatus: null, error: answer.failure }
        : this.retry(delivery, null, null, answer.failure, now);
    }
    const { status } = answer;
    const answered = answer.body.trim() === '' ? null : excerpt(answer.body);
    const base = { id: delivery.id, attempts: delivery.attempts, answer: answered };
    if (status >= 200 && status < 300) {
      return { ...base, status: 'delivered', httpStatus: status, error: null };
    }
    const said = answered === null ? '' : `: ${answered}`;
    if (status === 408 || status === 429 || status >= 500) {
      return this.retry(
        delivery,
        status,
        answered,
        `The endpoint answered HTTP ${status}${said}.`,
        now,
      );
    }
    if (status === 410) {
      const reason = `The webhook was disabled: its endpoint answered HTTP 410 Gone.`;
      this.logger.warn(`Webhook ${webhook.id} answered 410 Gone: it is disabled.`);
      return {
        ...base,
        status: 'failed',
        httpStatus: status,
        error: reason,
        disableWebhook: { id: Number(webhook.id), reason },
      };
    }
    if (status >= 300 && status < 400) {
      return {
        ...base,
        status: 'failed',
        httpStatus: status,
        error:
          `The endpoint answered HTTP ${status}, a redirect${answer.location ? ` to ${excerpt(answer.location)}` : ''}: ` +
          'redirects are not followed; give the webhook its final URL.',
      };
    }
    return {
      ...base,
      status: 'failed',
      httpStatus: status,
      error: `The endpoint answered HTTP ${status}${said}.`,
    };
  }

  /** Pending again after a backoff, or failed when that would be past the event's age limit. */
  private retry(
    delivery: ClaimedDelivery,
    httpStatus: number | null,
    answer: string | null,
    error: string,
    now: Date,
  ): AttemptOutcome {
    const base = { id: delivery.id, attempts: delivery.attempts, httpStatus, answer };
    const next = now.getTime() + retryDelayMs(delivery.attempts, Math.random());
    const deadline = utcDate(delivery.event_at).getTime() + this.config.webhooks.maxAgeMs;
    if (next > deadline) {
      return {
        ...base,
        status: 'failed',
        error:
          `${error} Given up after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}: ` +
          `the event is older than WEBHOOK_MAX_AGE_HOURS (${this.config.webhooks.maxAgeMs / 3_600_000} h).`,
      };
    }
    return { ...base, status: 'pending', error, nextAttemptAt: utcString(new Date(next)) };
  }

  /** Removes, once an hour, the log rows older than WEBHOOK_LOG_DAYS that are not pending. */
  private async purgeOld(now: Date): Promise<void> {
    // Either way: a clock set back (tests set it) must not hold the purge off.
    if (Math.abs(now.getTime() - this.lastPurge) < PURGE_EVERY_MS) {
      return;
    }
    this.lastPurge = now.getTime();
    const before = utcString(new Date(now.getTime() - this.config.webhooks.logMs));
    let removed = 0;
    for (;;) {
      const count = await this.repository.purge(before, PURGED_PER_STATEMENT);
      removed += count;
      if (count < PURGED_PER_STATEMENT) {
        break;
      }
      await setImmediate();
    }
    if (removed > 0) {
      this.logger.log(`Removed ${removed} webhook deliveries older than WEBHOOK_LOG_DAYS.`);
    }
  }
}

/** The URL's origin (scheme, host, port): what concurrency is bounded by. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
