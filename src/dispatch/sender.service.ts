import { Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { SendResult } from '../adapters/adapter';
import { DispatchSignal } from '../common/dispatch-signal';
import { callbackUrls } from '../common/http/callback-urls';
import { AppConfig } from '../config/configuration';
import { MetricsService } from '../metrics/metrics.service';
import { Claimed } from './claim-plan';
import { ClaimsService } from './claims.service';
import { NewSended, OutboxRow } from './dispatch-rows';
import { PacedLanes } from './pacing';
import { Outcome, RecordingService } from './recording.service';
import { expiredReason, expiryMs, MESSAGE_EXPIRED, secondsLeft } from './validity';

/** Sends in flight at once per batch: a provider should not see hundreds of requests at once. */
const CONCURRENT_SENDS = 32;

/** How often a worker polls while rows it booked on a paced phone are waiting for their turn. */
const BOOKING_POLL_MS = 1000;

/**
 * Outcomes recorded per transaction: a default batch's in one. Recording a row costs about twice
 * what claiming it does (its `sended` row and their indexes), so a larger batch's record is cut
 * to hold the database, and on SQLite the event loop, for some milliseconds at most; each COMMIT
 * costs a sync to disk, and 250 per transaction made a 50,000-recipient campaign some 5 % slower
 * (bench/RESULTS.md).
 */
const RECORDED_PER_TRANSACTION = 500;

/**
 * Sends queued recipients: claims a batch (ClaimsService: choosing each one's phone and
 * reserving its limit), commits, sends outside any transaction, then records each outcome as its
 * `sended` entry and removes it from the outbox in one transaction (RecordingService;
 * docs/dispatch.md#guarantees: never call a provider inside one).
 * A claimed row is never claimed again: if its worker dies before recording it, the sweep
 * records it as `unknown` instead of sending it a second time.
 */
@Injectable()
export class SenderService {
  private readonly logger = new Logger(SenderService.name);

  /**
   * Outcomes sent and not recorded yet: the last batch's, those of paced sends that ended since,
   * and any whose recording failed (first at the next turn).
   */
  private unrecorded: Outcome[] = [];
  /** Claimed rows never handed to their provider, to put back in the queue. */
  private unsent: Claimed[] = [];
  private readonly lanes = new PacedLanes<Claimed>(
    async (claimed) => {
      const outcome = await this.sendOne(claimed);
      // Read after the send: recordSent replaces the array meanwhile.
      this.unrecorded.push(outcome);
    },
    (passed) => {
      this.metrics.countMissedSlots(passed[0].phone.adapter, passed.length);
      this.logger.warn(
        `${passed.length} send(s) through phone ${passed[0].phone.id} missed their sending slot ` +
          '(this worker was too busy, or had too many of its sends running) and go back to the ' +
          'queue.',
      );
      this.unsent.push(...passed);
    },
  );
  /** Until when rows this worker booked come due: it polls for them at least once a second. */
  private bookedUntil = 0;
  private bookingTicker: NodeJS.Timeout | null = null;

  constructor(
    private readonly claims: ClaimsService,
    private readonly recording: RecordingService,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly signal: DispatchSignal,
  ) {}

  /**
   * Sends up to `maxBatches` batches; the number of rows handled (0: nothing was ready). Each
   * batch is claimed in a transaction, sent outside of any, and its outcomes recorded in
   * another. Once `keepGoing` says no, the batch in flight is recorded and nothing more is
   * claimed. Each of these steps waits for a turn of the event loop: better-sqlite3 and
   * instant adapters hold it while they run, and the API's requests come in between them
   * rather than after a whole run (which is also why the outcomes are not recorded in the
   * next claim's transaction: a commit costs less than the wait of a step twice as long).
   *
   * `prepare` (the expansion of due messages) runs before the first claim, then alongside each
   * batch's sends, so that the next claim finds what it queued; the rounds go on while it
   * reports work, even when nothing was ready to claim (texts still to render). Once it is done,
   * the high-priority rows ready meanwhile are claimed and sent alongside the batch
   * (`sendHigh`): they do not wait for the batch's last send (docs/dispatch.md#priority).
   */
  async sendBatches(
    workerId: string,
    maxBatches: number,
    keepGoing: () => boolean = () => true,
    prepare: () => Promise<boolean> = () => Promise.resolve(false),
  ): Promise<number> {
    let handled = 0;
    let prepared = await prepare();
    for (let round = 0; round < maxBatches && keepGoing(); round++) {
      await this.recordSent(workerId);
      const batch = await this.claims.claimNext(workerId);
      if (batch.bookedUntil !== null) {
        this.pollUntil(batch.bookedUntil);
      }
      this.count(batch.recorded);
      handled += batch.handled;
      if (batch.handled === 0 && !prepared) {
        break;
      }
      await setImmediate();
      const [sent, next] = await Promise.allSettled([
        this.sendAll(batch.claimed),
        setImmediate()
          .then(prepare)
          .then(async (more) => {
            handled += await this.sendHigh(workerId);
            return more;
          }),
      ]);
      if (sent.status === 'rejected') {
        throw sent.reason;
      }
      this.unrecorded.push(...sent.value);
      if (next.status === 'rejected') {
        throw next.reason;
      }
      prepared = next.value;
    }
    await this.recordSent(workerId);
    return handled;
  }

  /**
   * Claims the high-priority rows ready to send and sends them; how many rows it handled. Their
   * outcomes are recorded with the batch's.
   */
  private async sendHigh(workerId: string): Promise<number> {
    const high = await this.claims.claimHigh(workerId);
    if (high.bookedUntil !== null) {
      this.pollUntil(high.bookedUntil);
    }
    this.count(high.recorded);
    if (high.claimed.length > 0) {
      this.unrecorded.push(...(await this.sendAll(high.claimed)));
    }
    return high.handled;
  }

  /**
   * Starts no more paced sends and records every outcome; the rows whose slot had not come go
   * back to the queue. For the worker's shutdown, once its last batch is over.
   */
  async stop(workerId: string): Promise<void> {
    if (this.bookingTicker) {
      clearInterval(this.bookingTicker);
      this.bookingTicker = null;
    }
    this.unsent.push(...(await this.lanes.stop()));
    await this.recordSent(workerId);
  }

  /**
   * Records the outcomes sent so far and requeues the rows never sent, RECORDED_PER_TRANSACTION
   * at a time. On failure the rest are kept, and recorded first at the next turn: their rows
   * stay claimed by this live worker until then.
   */
  private async recordSent(workerId: string): Promise<void> {
    while (this.unrecorded.length > 0 || this.unsent.length > 0) {
      const part = this.unrecorded.slice(0, RECORDED_PER_TRANSACTION);
      const back = this.unsent.slice(0, RECORDED_PER_TRANSACTION);
      this.count(await this.recording.recordOutcomes(workerId, part, back));
      this.unrecorded = this.unrecorded.slice(part.length);
      this.unsent = this.unsent.slice(back.length);
      await setImmediate();
    }
  }

  /**
   * Counts committed entries in the metrics, the expired ones also as such, and the refusals of
   * the phones they went through first.
   */
  private count(entries: readonly NewSended[]): void {
    this.metrics.countSent(entries);
    this.metrics.countFailedOver(entries.flatMap((entry) => entry.refusals));
    this.metrics.countExpired(
      entries.filter(
        (entry) => entry.status === 'failed' && entry.error?.startsWith(MESSAGE_EXPIRED) === true,
      ),
    );
  }

  /**
   * Makes this worker poll at least once a second until `until` (epoch ms), so that it claims the
   * rows it booked before their slots, even with a longer DISPATCH_POLL_MS.
   */
  private pollUntil(until: number): void {
    this.bookedUntil = Math.max(this.bookedUntil, until);
    if (this.bookingTicker || this.config.dispatch.pollMs <= BOOKING_POLL_MS) {
      return;
    }
    this.bookingTicker = setInterval(() => {
      if (Date.now() > this.bookedUntil && this.bookingTicker) {
        clearInterval(this.bookingTicker);
        this.bookingTicker = null;
      }
      this.signal.notify();
    }, BOOKING_POLL_MS);
    this.bookingTicker.unref();
  }

  /** Sends the claimed rows: paced ones in their phone's lane, at their slot; the others now. */
  private async sendAll(claimed: readonly Claimed[]): Promise<Outcome[]> {
    for (const paced of claimed) {
      if (paced.slot !== null) {
        this.lanes.add(paced.phone.id, paced.slot, paced);
      }
    }
    return this.sendNow(claimed.filter((unpaced) => unpaced.slot === null));
  }

  private async sendNow(claimed: readonly Claimed[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array<Outcome>(claimed.length);
    let next = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const index = next++;
        outcomes[index] = await this.sendOne(claimed[index]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_SENDS, claimed.length) }, lane));
    return outcomes;
  }

  private async sendOne(claimed: Claimed): Promise<Outcome> {
    const { row, phone, adapter, data, text, medias } = claimed;
    const now = Date.now();
    if (row.expires_at !== null && expiryMs(row.expires_at) <= now) {
      // Claimed in time, but its turn in the batch or its lane came too late: never handed over,
      // and no other phone would be in time either.
      return {
        claimed,
        text,
        result: {
          outcome: 'permanent',
          reason: expiredReason(row.expires_at, this.config.timeZone),
          cause: 'recipient',
        },
      };
    }
    let result: SendResult;
    const started = performance.now();
    try {
      result = await adapter.send(data, {
        destination: row.destination,
        text,
        flash: Boolean(Number(row.flash)) && adapter.capabilities.flash,
        medias,
        // A getter: only the adapters of providers that deduplicate read it, and hashing it for
        // every send of a campaign through the others cost as much as their own work.
        get idempotencyKey() {
          return idempotencyKey(row, text);
        },
        validitySeconds: secondsLeft(row.expires_at, now),
        callbackUrls: callbackUrls(this.config, phone.callback_token ?? null),
      });
    } catch (error) {
      this.logger.error({ err: error }, `The ${phone.adapter} adapter failed unexpectedly.`);
      // The recipient's: the adapter may have handed the message over before it failed, and
      // another phone would send it a second time.
      result = {
        outcome: 'permanent',
        reason: `The ${phone.adapter} adapter failed unexpectedly; the server log holds the details.`,
        cause: 'recipient',
      };
    }
    this.metrics.observeProviderCall(
      phone.adapter,
      result.outcome,
      (performance.now() - started) / 1000,
    );
    return { claimed, text, result };
  }
}

/**
 * The same for every attempt of one recipient, and different for another recipient, even of a
 * database started again from scratch (whose outbox ids start over): its row's id, scheduled
 * message, destination and text, hashed. 30 characters, within what providers take as an id.
 */
function idempotencyKey(row: OutboxRow, text: string): string {
  const digest = createHash('sha256')
    .update(`${row.id}|${row.originating_scheduled}|${row.destination}|${text}`)
    .digest('hex');
  return `smsgw-${digest.slice(0, 24)}`;
}
