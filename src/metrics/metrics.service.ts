import { Injectable, Logger } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { MetricsRepository, OUTBOX_STATES } from './metrics.repository';

/** Seconds: most API answers take a few milliseconds, a slow read a second or more. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds: a provider answers in tens of milliseconds to seconds, or at its timeout. */
const PROVIDER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Seconds: at once when the endpoint answers, or after retries (10 s, then doubling). */
const WEBHOOK_BUCKETS = [1, 2, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400];

/** The route label of a request no route matched: the raw path would make labels unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the sent-entries counter needs of a recorded entry. */
export interface SentEntry {
  adapter: string;
  status: string;
}

/**
 * The Prometheus metrics of the process, in a registry of its own (several apps may share a
 * process, as the tests and the benchmarks do). Counters and histograms are recorded as things
 * happen; the gauges that read the database are computed when scraped, so that an idle process
 * queries nothing. With `METRICS=off` nothing is served and the process metrics are not
 * collected; the dispatch's counters still count, which costs nothing measurable beside a
 * batch's commits.
 */
@Injectable()
export class MetricsService {
  private readonly logger = new Logger(MetricsService.name);
  private readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly httpRequests = new Histogram({
    name: 'smsgw_http_request_duration_seconds',
    help: 'HTTP requests answered, by route template, method and status, and how long each took.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  private readonly sentEntries = new Counter({
    name: 'smsgw_sent_entries_total',
    help: 'Sent entries recorded by the dispatch, by adapter and status ("none": no phone).',
    labelNames: ['adapter', 'status'] as const,
    registers: [this.registry],
  });

  private readonly expiredSends = new Counter({
    name: 'smsgw_sends_expired_total',
    help:
      "Recipients recorded as failed because their message's validity ended before they could " +
      'be handed to a provider, by adapter ("none": no phone).',
    labelNames: ['adapter'] as const,
    registers: [this.registry],
  });

  private readonly failedOverSends = new Counter({
    name: 'smsgw_sends_failed_over_total',
    help:
      'Refusals, for a reason of the phone, after which a recipient went through another phone, ' +
      'by the adapter of the phone that refused (docs/dispatch.md#failover).',
    labelNames: ['adapter'] as const,
    registers: [this.registry],
  });

  private readonly providerCalls = new Histogram({
    name: 'smsgw_provider_call_duration_seconds',
    help: 'Sends handed to a provider, by adapter and outcome, and how long each took.',
    labelNames: ['adapter', 'outcome'] as const,
    buckets: PROVIDER_BUCKETS,
    registers: [this.registry],
  });

  private readonly missedSlots = new Counter({
    name: 'smsgw_paced_slots_missed_total',
    help:
      "Paced phones' sending slots this process's worker let pass (too busy to start the send in " +
      'time, or its sends through the phone at their bound), by adapter: each row went back to the queue.',
    labelNames: ['adapter'] as const,
    registers: [this.registry],
  });

  private readonly webhookAttempts = new Counter({
    name: 'smsgw_webhook_attempts_total',
    help:
      'Webhook delivery attempts by the outcome they gave their delivery: delivered, retry ' +
      '(pending again) or failed.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  private readonly webhookLatency = new Histogram({
    name: 'smsgw_webhook_delivery_latency_seconds',
    help: 'From an event to its delivery to a webhook (to the second: events are stamped so).',
    buckets: WEBHOOK_BUCKETS,
    registers: [this.registry],
  });

  constructor(
    config: AppConfig,
    private readonly repository: MetricsRepository,
  ) {
    this.enabled = config.metrics.enabled;
    const queue: Gauge<'state'> = new Gauge({
      name: 'smsgw_dispatch_queue_recipients',
      help: 'Recipients in the dispatch queue, by state (sending: handed to a provider).',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect: async () => {
        const counts = await this.read('dispatch queue', () => repository.queueByState());
        for (const state of OUTBOX_STATES) {
          queue.set({ state }, counts ? (counts.get(state) ?? 0) : Number.NaN);
        }
      },
    });
    const due: Gauge = new Gauge({
      name: 'smsgw_scheduled_due_messages',
      help: 'Scheduled messages of active users that are due and not yet queued in full.',
      registers: [this.registry],
      collect: async () => {
        due.set(
          (await this.read('due messages', () => repository.dueScheduled(nowUtc()))) ?? Number.NaN,
        );
      },
    });
    const heartbeat: Gauge = new Gauge({
      name: 'smsgw_worker_heartbeat_age_seconds',
      help: 'Seconds since the latest heartbeat of any dispatch worker (+Inf: none is registered).',
      registers: [this.registry],
      collect: async () => {
        const at = await this.read('worker heartbeat', () => repository.lastHeartbeat());
        heartbeat.set(at === undefined ? Number.NaN : ageSeconds(at));
      },
    });
    const webhookQueue: Gauge = new Gauge({
      name: 'smsgw_webhook_queue_deliveries',
      help: 'Webhook deliveries pending: due now, waiting for a retry or being attempted.',
      registers: [this.registry],
      collect: async () => {
        webhookQueue.set(
          (await this.read('webhook queue', () => repository.pendingDeliveries())) ?? Number.NaN,
        );
      },
    });
    if (this.enabled) {
      collectDefaultMetrics({ register: this.registry });
    }
  }

  /** The exposition's content type (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text format, the database gauges read now. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.httpRequests.observe({ route, method, status: String(status) }, seconds);
  }

  /** Counts entries once their transaction has committed: a rolled-back one is retried. */
  countSent(entries: readonly SentEntry[]): void {
    for (const entry of entries) {
      this.sentEntries.inc({ adapter: entry.adapter || 'none', status: entry.status });
    }
  }

  /** Expired recipients, once the transaction that recorded their entries has committed. */
  countExpired(entries: readonly Pick<SentEntry, 'adapter'>[]): void {
    for (const entry of entries) {
      this.expiredSends.inc({ adapter: entry.adapter || 'none' });
    }
  }

  /**
   * The refusals of the phones recipients went through first, once the transaction that
   * recorded their entries has committed.
   */
  countFailedOver(refusals: readonly { adapter: string }[]): void {
    for (const refusal of refusals) {
      this.failedOverSends.inc({ adapter: refusal.adapter });
    }
  }

  /** An attempt's outcome, and the delivery's latency when it delivered. */
  countWebhookAttempt(status: string, latencySeconds: number | null): void {
    this.webhookAttempts.inc({ status });
    if (latencySeconds !== null) {
      this.webhookLatency.observe(latencySeconds);
    }
  }

  countMissedSlots(adapter: string, slots: number): void {
    this.missedSlots.inc({ adapter }, slots);
  }

  observeProviderCall(adapter: string, outcome: string, seconds: number): void {
    this.providerCalls.observe({ adapter, outcome }, seconds);
  }

  /**
   * What `query` reads for a gauge; undefined when the database does not answer, for the gauge
   * to be NaN rather than fail the scrape: the process metrics still matter then, and readiness
   * says what is wrong.
   */
  private async read<T>(gauge: string, query: () => Promise<T>): Promise<T | undefined> {
    try {
      return await query();
    } catch (error) {
      this.logger.warn({ err: error }, `The ${gauge} gauge could not read the database.`);
      return undefined;
    }
  }
}

/** Seconds since a UTC `YYYY-MM-DD HH:MM:SS` datetime; +Inf for none. */
function ageSeconds(at: string | null): number {
  if (at === null) {
    return Number.POSITIVE_INFINITY;
  }
  return Math.max(0, (Date.now() - Date.parse(`${at.replace(' ', 'T')}Z`)) / 1000);
}
