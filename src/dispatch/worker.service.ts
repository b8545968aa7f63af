import {
  Inject,
  Injectable,
  Logger,
  BeforeApplicationShutdown,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { InboundSink } from '../adapters/adapter';
import { AdapterDataCipher, unreadableClause } from '../adapters/adapter-data.cipher';
import { AdapterRegistry } from '../adapters/adapter.registry';
import { Sql } from '../database/driver/sql';
import { DispatchSignal } from '../common/dispatch-signal';
import { WorkerHeartbeat } from '../common/worker-heartbeat';
import { nowUtc, utcString } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { ABANDONED_AFTER_MS } from '../messages/hidden-messages';
import { MetricsService } from '../metrics/metrics.service';
import { WebhookDeliverer } from '../webhook-delivery/webhook-deliverer.service';
import { ReliabilityService } from '../reliability/reliability.service';
import { NewSended } from './dispatch-rows';
import { ExpansionService } from './expansion.service';
import { MediaCollector } from './media-collector';
import { RenderingService } from './rendering.service';
import { RecordingService, UNKNOWN_OUTCOME, sended } from './recording.service';
import { SenderService } from './sender.service';
import { WorkerRepository } from './worker.repository';

/** Where listening adapters report receipts and inbound messages (the callbacks service). */
export const INBOUND_SINK = Symbol('INBOUND_SINK');

/** Whether this process dispatches: `WORKER=inline` in the API, always in the worker process. */
export const START_WORKER = Symbol('START_WORKER');

/**
 * Pages rendered, and batches sent (each with an expansion of due messages alongside), per loop
 * turn: a turn ends when both are done, and the next starts at once if either did anything.
 */
const BATCHES_PER_TURN = 20;

/** How often unused medias are looked for: removals come within this of the grace period's end. */
const MEDIA_COLLECTION_MS = 60 * 60 * 1000;

/** How often expired idempotency keys are removed: a key goes within this of its expiry. */
const KEY_PURGE_MS = 60 * 60 * 1000;

/** Expired idempotency keys removed per statement: a few milliseconds of the SQLite writer. */
const KEYS_PER_PURGE = 1000;

/**
 * The dispatch worker (docs/dispatch.md): expands due messages, sends their recipients, records
 * outcomes, delivers webhook events, and keeps a heartbeat in the `worker` table. Any live worker also sweeps the sends
 * in flight of workers that stopped beating, recording them as `unknown` (never resending);
 * the oldest live worker also removes the medias nothing uses any more and expired idempotency
 * keys.
 */
@Injectable()
export class WorkerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerService.name);
  /** Host and pid first: on SQLite, whether a registered worker still runs is a pid check. */
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private running = false;
  private readonly stopping = new AbortController();
  private tasks: Array<Promise<void>> = [];
  private readonly listeners = new Map<string, () => Promise<void>>();
  /** Phones (as their listener keys) already said not to listen for unreadable credentials. */
  private readonly unreadable = new Set<string>();

  constructor(
    private readonly repository: WorkerRepository,
    private readonly expansion: ExpansionService,
    private readonly rendering: RenderingService,
    private readonly sender: SenderService,
    private readonly recording: RecordingService,
    private readonly medias: MediaCollector,
    private readonly adapters: AdapterRegistry,
    private readonly secrets: AdapterDataCipher,
    private readonly config: AppConfig,
    private readonly signal: DispatchSignal,
    private readonly heartbeat: WorkerHeartbeat,
    private readonly metrics: MetricsService,
    private readonly deliverer: WebhookDeliverer,
    private readonly reliability: ReliabilityService,
    @Inject(START_WORKER) private readonly startWorker: boolean,
    @Inject(INBOUND_SINK) private readonly sink: InboundSink,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.startWorker) {
      await this.start();
    }
  }

  /** Whether this process dispatches (false: not started, stopped, or SQLite taken). */
  get isRunning(): boolean {
    return this.running;
  }

  /** Starts dispatching; false when another worker already runs on this SQLite database. */
  async start(): Promise<boolean> {
    if (!this.repository.mysql && !(await this.claimSqlite())) {
      return false;
    }
    await this.repository.heartbeat(this.id, nowUtc());
    this.running = true;
    this.heartbeat.beat();
    this.tasks = [
      this.every(this.heartbeatMs, () => this.repository.heartbeat(this.id, nowUtc())),
      this.every(this.heartbeatMs, () => this.sweep()),
      this.every(this.config.dispatch.pollMs, () => this.dispatch(), true, this.signal),
      this.every(LISTEN_REFRESH_MS, () => this.refreshListeners()),
      this.every(MEDIA_COLLECTION_MS, () => this.collectMedias()),
      this.every(KEY_PURGE_MS, () => this.removeExpiredKeys()),
      this.every(ABANDONED_AFTER_MS, () => this.removeAbandonedHidden()),
      this.deliverer.run(this.stopping.signal, this.config.dispatch.pollMs),
      this.every(this.config.reliabilityCheckMs, () => this.checkReliability()),
    ];
    this.logger.log(`Dispatch worker ${this.id} started.`);
    return true;
  }

  /** Before any module shuts down: the batch in flight is recorded while the database is open. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) {
      return;
    }
    this.running = false;
    this.stopping.abort();
    await Promise.all(this.tasks);
    try {
      await this.sender.stop(this.id);
    } catch (error) {
      // Its rows stay claimed: the sweep records them once this worker's heartbeat stops.
      this.logger.warn(
        { err: error },
        `Dispatch worker ${this.id} could not record its last sends.`,
      );
    }
    this.heartbeat.stop();
    await Promise.all([...this.listeners.values()].map((stop) => stop()));
    this.listeners.clear();
    try {
      await this.repository.unregisterWorker(this.id);
    } catch (error) {
      // Nothing is lost: its heartbeat stops, so the row goes with the next sweep.
      this.logger.warn({ err: error }, `Dispatch worker ${this.id} could not unregister.`);
    }
    this.logger.log(`Dispatch worker ${this.id} stopped.`);
  }

  private get heartbeatMs(): number {
    return Math.max(200, Math.floor(this.config.dispatch.workerTimeoutMs / 4));
  }

  /**
   * Runs `work` every `ms` until shutdown; `busy` work runs again at once while it reports
   * progress, and a `wake` signal cuts the wait short. A failure is logged and retried at the
   * next turn: a database restart must not kill the worker.
   */
  private async every(
    ms: number,
    work: () => Promise<unknown>,
    busy = false,
    wake?: DispatchSignal,
  ): Promise<void> {
    while (this.running) {
      let progressed = false;
      try {
        progressed = (await work()) === true;
      } catch (error) {
        this.logger.error(
          { err: error },
          `Dispatch worker ${this.id}: ${(error as Error).message}`,
        );
      }
      if (!(busy && progressed) && this.running) {
        await (wake
          ? wake.wait(ms, this.stopping.signal)
          : sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined));
      } else {
        // Lets the API's requests in between turns (see SenderService.sendBatches).
        await setImmediate();
      }
    }
  }

  /**
   * One turn: expand what is due alongside each batch sent, and render. True when there was
   * work.
   */
  private async dispatch(): Promise<boolean> {
    const going = () => {
      this.heartbeat.beat();
      return this.running;
    };
    let expanded = false;
    const expand = async () => {
      const more = this.running && (await this.expansion.expandBatch(this.stopping.signal));
      expanded ||= more;
      return more;
    };
    // Renders run in the text pool's threads: batches already rendered are sent meanwhile.
    const [rendered, sent] = await Promise.allSettled([
      this.render(going),
      this.sender.sendBatches(this.id, BATCHES_PER_TURN, going, expand),
    ]);
    for (const outcome of [rendered, sent]) {
      if (outcome.status === 'rejected') {
        throw outcome.reason;
      }
    }
    return (
      expanded ||
      (rendered.status === 'fulfilled' && rendered.value > 0) ||
      (sent.status === 'fulfilled' && sent.value > 0)
    );
  }

  /** Renders up to BATCHES_PER_TURN pages while `going` says so; the number of rows rendered. */
  private async render(going: () => boolean): Promise<number> {
    let rendered = 0;
    for (let page = 0; page < BATCHES_PER_TURN && going(); page++) {
      const count = await this.rendering.renderNext(this.id, this.stopping.signal);
      if (count === 0) {
        break;
      }
      rendered += count;
    }
    return rendered;
  }

  /** Records the sends in flight of dead workers as `unknown`, never sending them again. */
  private async sweep(): Promise<boolean> {
    const now = Date.now();
    await this.repository.forgetDeadWorkers(
      utcString(new Date(now - this.config.dispatch.workerTimeoutMs)),
    );
    const swept = await this.repository.transaction(this.recordOrphans());
    this.metrics.countSent(swept);
    if (swept.length > 0) {
      this.logger.warn(`Recorded ${swept.length} sends of stopped workers as unknown.`);
    }
    return swept.length > 0;
  }

  /** Records a batch of the sends in flight of dead workers; the entries recorded. */
  private *recordOrphans(): Sql<readonly NewSended[]> {
    const orphans = yield* this.repository.lockOrphans(this.config.dispatch.batchSize);
    if (orphans.length === 0) {
      return [];
    }
    const stamp = nowUtc();
    const phoneIds = [
      ...new Set(orphans.flatMap((row) => (row.via_phone ? [Number(row.via_phone)] : []))),
    ];
    const adapters = yield* this.repository.adaptersOf(phoneIds);
    return yield* this.recording.store(
      orphans.map((row) => {
        const phoneId = row.via_phone === null ? null : Number(row.via_phone);
        const phone =
          phoneId === null ? null : { id: phoneId, adapter: adapters.get(phoneId) ?? '' };
        return {
          row,
          sended: sended(row, phone, stamp, row.text, 'unknown', {
            uid: null,
            error: UNKNOWN_OUTCOME,
          }),
        };
      }),
      stamp,
    );
  }

  /**
   * Removes unused medias, in the oldest live worker only: two would only repeat each other's
   * work (the collection is safe with several: see MediaCollector).
   */
  private async collectMedias(): Promise<void> {
    const leader = await this.repository.oldestWorker(
      utcString(new Date(Date.now() - this.config.dispatch.workerTimeoutMs)),
    );
    if (leader === this.id) {
      await this.medias.collect(new Date(), () => this.running);
    }
  }

  /**
   * Removes expired idempotency keys, in the oldest live worker only, in bounded batches that let
   * the API's requests in between. Requests never depend on it: one that finds its key expired
   * but still there removes that row itself (IdempotencyService); this keeps the table small.
   */
  private async removeExpiredKeys(): Promise<void> {
    const leader = await this.repository.oldestWorker(
      utcString(new Date(Date.now() - this.config.dispatch.workerTimeoutMs)),
    );
    if (leader !== this.id) {
      return;
    }
    let removed = 0;
    for (let batch = KEYS_PER_PURGE; batch === KEYS_PER_PURGE && this.running;) {
      batch = await this.repository.removeExpiredKeys(nowUtc(), KEYS_PER_PURGE);
      removed += batch;
      await setImmediate();
    }
    if (removed > 0) {
      this.logger.log(`Removed ${removed} expired idempotency keys.`);
    }
  }

  /**
   * Removes the hidden scheduled messages that a process stopped while writing
   * (src/messages/hidden-messages.ts), in the oldest live worker only, in bounded parts that let
   * the API's requests in between; at the worker's start, then every ABANDONED_AFTER_MS.
   */
  private async removeAbandonedHidden(): Promise<void> {
    const leader = await this.repository.oldestWorker(
      utcString(new Date(Date.now() - this.config.dispatch.workerTimeoutMs)),
    );
    if (leader !== this.id) {
      return;
    }
    const abandoned = await this.repository.abandonedHidden(
      utcString(new Date(Date.now() - ABANDONED_AFTER_MS)),
    );
    for (const id of abandoned) {
      while (this.running && !(await this.repository.removeHiddenPart(id))) {
        await setImmediate();
      }
      await setImmediate();
    }
    if (abandoned.length > 0) {
      this.logger.log(`Removed ${abandoned.length} hidden scheduled messages left unfinished.`);
    }
  }

  /**
   * Checks the phones' reliability in the oldest live worker only, so that a window is read, and
   * alerted, by one checker at a time.
   */
  private async checkReliability(): Promise<void> {
    const leader = await this.repository.oldestWorker(
      utcString(new Date(Date.now() - this.config.dispatch.workerTimeoutMs)),
    );
    if (leader === this.id) {
      await this.reliability.check(new Date(), () => this.running);
    }
  }

  /**
   * SQLite has one writer, so one worker: another registered one that still runs (same host,
   * live pid) keeps the database; the rows of ones that died go, so their sends in flight are
   * swept at once instead of after the heartbeat timeout.
   */
  private async claimSqlite(): Promise<boolean> {
    const others = await this.repository.workers();
    for (const other of others) {
      const [host, pid] = other.split(':');
      if (other !== this.id && host === hostname() && isAlive(Number(pid))) {
        this.logger.warn(
          `Another dispatch worker (pid ${pid}) already runs on this SQLite database: this process does not dispatch.`,
        );
        return false;
      }
    }
    await this.repository.forgetWorkersExcept(this.id);
    return true;
  }

  /**
   * Starts or stops adapters' listeners as phones come and go: in every worker for adapters that
   * listen on their own connections, in the oldest live worker only for those that poll.
   */
  private async refreshListeners(): Promise<void> {
    const leader = await this.repository.oldestWorker(
      utcString(new Date(Date.now() - this.config.dispatch.workerTimeoutMs)),
    );
    const listening = this.adapters.adapters.filter(
      (adapter) =>
        adapter.listen !== undefined &&
        (leader === this.id || adapter.capabilities.listensPerProcess === true),
    );
    const phones = await this.repository.phonesWithAdapters(
      listening.map((adapter) => adapter.descriptor.id),
    );
    const wanted = new Map(
      phones.map((phone) => [`${phone.id}:${phone.adapter_data ?? ''}`, phone]),
    );
    for (const [key, stop] of this.listeners) {
      if (!wanted.has(key)) {
        this.listeners.delete(key);
        await stop();
      }
    }
    for (const key of this.unreadable) {
      if (!wanted.has(key)) {
        this.unreadable.delete(key);
      }
    }
    for (const [key, phone] of wanted) {
      const adapter = this.adapters.find(phone.adapter);
      if (this.listeners.has(key) || this.unreadable.has(key) || !adapter?.listen) {
        continue;
      }
      const { data, unreadable } = this.secrets.open(phone);
      if (unreadable.length > 0) {
        this.unreadable.add(key);
        this.logger.warn(
          `Phone ${phone.id} does not listen to its provider: ${unreadableClause(unreadable)}; ` +
            'its adapter_data must be sent again.',
        );
        continue;
      }
      this.listeners.set(
        key,
        adapter.listen({ id: phone.id, id_user: Number(phone.id_user), data }, this.sink),
      );
    }
  }
}

const LISTEN_REFRESH_MS = 30_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
