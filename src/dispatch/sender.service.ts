import { Injectable, Logger } from '@nestjs/common';
import { DispatchSignal } from '../common/dispatch-signal';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { Adapter, AdapterData, OutgoingSms, SendResult } from '../adapters/adapter';
import { AdapterDataCipher, OpenedData, unreadableClause } from '../adapters/adapter-data.cipher';
import { AdapterRegistry } from '../adapters/adapter.registry';
import { callbackUrls } from '../common/http/callback-urls';
import { nowUtc, utcDate, utcString, utcToZone } from '../common/time/datetime';
import { Sql } from '../database/driver/sql';
import { countingWindows, remainingVolume } from '../common/limits/remaining-volume';
import { MAX_TEXT_CHARACTERS } from '../common/text/message-text';
import { AppConfig } from '../config/configuration';
import { queueEvents } from '../events/webhook-events';
import { MetricsService } from '../metrics/metrics.service';
import {
  closeThreshold,
  dueAlerts,
  isExpired,
  QuotaState,
  remainingOf,
  renewedAt,
} from '../users/quota';
import { isSettingOn } from '../users/settings';
import {
  Booking,
  DispatchRepository,
  LimitRow,
  NewSended,
  OutboxRow,
  PhoneRow,
} from './dispatch.repository';
import { PACE_AHEAD_MS, PACE_LATE_MS, PACE_LEAD_MS, PacedLanes, slotSpacingMs } from './pacing';
import { choosePhone } from './phone-choice';
import { measureSms } from '../common/text/gsm';

/** A claimed row and what it is to be sent through. */
interface Claimed {
  row: OutboxRow;
  phone: PhoneRow;
  adapter: Adapter;
  /** The phone's adapter data, decrypted. */
  data: AdapterData;
  /** What goes to the provider: the text, with the links of its medias when not an MMS. */
  text: string;
  medias: OutgoingSms['medias'];
  /** When it is sent (epoch ms), through a paced phone; null: at once. */
  slot: number | null;
}

/** A paced phone's sending slots while a claim hands them out. */
interface Pace {
  /** When its next slot is free (epoch ms). */
  next: number;
  spacing: number;
  moved: boolean;
}

/** A user's quota as a claim spends it. */
interface QuotaBudget {
  quota: QuotaState;
  /** Segments the claim may still reserve. */
  left: number;
  /** Reserved by this claim. */
  reserved: number;
}

/** A recorded send's effect on its user's quota. */
interface QuotaChange {
  userId: number;
  /** Segments no longer reserved. */
  released: number;
  /** Of those, taken by a provider. */
  consumed: number;
}

/** A row that will not be sent, and why. */
interface Refused {
  row: OutboxRow;
  phone: PhoneRow | null;
  reason: string;
}

/**
 * What a claim took: rows to send, how many rows it handled, refused ones included, and the
 * entries of those refused.
 */
interface Batch {
  claimed: Claimed[];
  handled: number;
  recorded: readonly NewSended[];
}

/** Sends in flight at once per batch: a provider should not see hundreds of requests at once. */
const CONCURRENT_SENDS = 32;

/** How often a worker polls while rows it booked on a paced phone are waiting for their turn. */
const BOOKING_POLL_MS = 1000;

/**
 * Outcomes recorded per transaction: recording a row costs about twice what claiming it does
 * (its `sended` row and their indexes), so a batch's record is cut to hold the database, and on
 * SQLite the event loop, about as long as its claim.
 */
const RECORDED_PER_TRANSACTION = 250;

/** A send's outcome, with the text that was handed to the provider. */
interface Outcome {
  claimed: Claimed;
  text: string;
  result: SendResult;
}

/** Why a phone that is not `available` does not send, by its status. */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  unavailable: 'The phone is unavailable: check it, then update its status.',
  no_credit: 'The phone has no credit left.',
  limit_reached: 'The phone has reached its sending limit.',
  disabled: 'The phone is disabled.',
};

const TOO_LONG_WITH_LINKS =
  `With the links of its medias, the text is longer than ${MAX_TEXT_CHARACTERS} characters: shorten it, ` +
  'or send through a phone that sends MMS.';

const NO_MEDIA_LINKS =
  'The message has medias and its phone cannot send MMS, so they would go as links, but ' +
  'PUBLIC_URL is not set: set it, or send through a phone that sends MMS.';

/** How the error of a recipient that its user's quota cannot cover starts. */
export const QUOTA_SPENT = 'The sending quota is spent';

/** How the error of a recipient whose user's quota expired without renewal starts. */
export const QUOTA_EXPIRED = 'The sending quota expired';

export const UNKNOWN_OUTCOME =
  "The worker sending this message stopped before the provider's answer was recorded: it may " +
  'have been sent, so it is not sent again.';

/**
 * Sends queued recipients: claims a batch (choosing each one's phone and reserving its limit),
 * commits, sends outside any transaction, then records each outcome as its `sended` entry and
 * removes it from the outbox in one transaction (docs/dispatch.md#guarantees: never call a
 * provider inside one).
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
    private readonly repository: DispatchRepository,
    private readonly adapters: AdapterRegistry,
    private readonly secrets: AdapterDataCipher,
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
   * reports work, even when nothing was ready to claim (texts still to render).
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
      const batch = await this.repository.transaction(this.claim(workerId));
      this.metrics.countSent(batch.recorded);
      handled += batch.handled;
      if (batch.handled === 0 && !prepared) {
        break;
      }
      await setImmediate();
      const [sent, next] = await Promise.allSettled([
        this.sendAll(batch.claimed),
        setImmediate().then(prepare),
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
      this.metrics.countSent(await this.repository.transaction(this.record(workerId, part, back)));
      this.unrecorded = this.unrecorded.slice(part.length);
      this.unsent = this.unsent.slice(back.length);
      await setImmediate();
    }
  }

  /** Claims the next batch: rows to send, with their phone, and rows refused and recorded. */
  private *claim(workerId: string): Sql<Batch> {
    const now = nowUtc();
    const size = this.config.dispatch.batchSize;
    const rejected = yield* this.repository.lockReady('rejected', now, size);
    const booked = yield* this.repository.lockBooked(
      Date.now() + PACE_AHEAD_MS,
      size - rejected.length,
    );
    const queued = [
      ...booked,
      ...(yield* this.repository.lockReady('queued', now, size - rejected.length - booked.length)),
    ];
    if (rejected.length + queued.length === 0) {
      return { claimed: [], handled: 0, recorded: [] };
    }
    // A row refused before any phone was chosen keeps the phone its message named, so that its
    // entry counts for that phone in usage and statistics as it is listed.
    const naming = rejected.filter((row) => row.id_phone);
    const phones =
      naming.length > 0
        ? yield* this.repository.phonesOf([...new Set(naming.map((row) => Number(row.id_user)))])
        : [];
    const refused: Refused[] = rejected.map((row) => ({
      row,
      phone:
        phones.find(
          (phone) =>
            phone.id === Number(row.id_phone) && Number(phone.id_user) === Number(row.id_user),
        ) ?? null,
      reason: row.error ?? 'The message could not be prepared.',
    }));
    const claimed: Claimed[] = [];
    if (queued.length > 0) {
      yield* this.route(queued, new Date(), claimed, refused);
    }
    const recorded = yield* this.recordRefused(refused, now);
    const groups = new Map<string, { phoneId: number; segments: number | null; ids: number[] }>();
    for (const { row, phone } of claimed) {
      const key = `${phone.id}:${row.quota_segments}`;
      const group = groups.get(key) ?? { phoneId: phone.id, segments: row.quota_segments, ids: [] };
      group.ids.push(row.id);
      groups.set(key, group);
    }
    for (const { phoneId, segments, ids } of groups.values()) {
      yield* this.repository.claim(ids, phoneId, segments, workerId, now);
    }
    return { claimed, handled: rejected.length + queued.length, recorded };
  }

  /**
   * Chooses each row's phone (docs/dispatch.md#phone-choice) and sorts the rows into those to send
   * and those refused before any send: no phone, a phone that is not available, a spent limit,
   * medias that cannot go, a spent or expired quota. A row for a paced phone takes its next
   * sending slot (or keeps the one it was booked): claimed when the slot comes soon, booked to
   * wait in the queue otherwise (docs/dispatch.md#pacing). A row to send reserves its segments of
   * its user's quota, last, so that a refused or booked row takes none.
   */
  private *route(
    rows: readonly OutboxRow[],
    now: Date,
    claimed: Claimed[],
    refused: Refused[],
  ): Sql<void> {
    const userIds = [...new Set(rows.map((row) => Number(row.id_user)))];
    const phones = yield* this.repository.phonesOf(userIds);
    const settings = new Map<number, Record<string, string>>();
    for (const userId of userIds) {
      settings.set(userId, yield* this.repository.settingsOf(userId));
    }
    const groupIds = [
      ...new Set(rows.flatMap((row) => (row.id_phone_group ? [row.id_phone_group] : []))),
    ];
    const members = new Map<number, Set<number>>();
    if (groupIds.length > 0) {
      for (const link of yield* this.repository.phoneGroupMembers(groupIds)) {
        const group = Number(link.id_phone_group);
        members.set(group, (members.get(group) ?? new Set()).add(Number(link.id_phone)));
      }
    }
    // The row's phone when it names one that exists; else the phones it may be sent through.
    const pools = rows.map((row) => {
      const own = phones.filter((phone) => Number(phone.id_user) === Number(row.id_user));
      const pinned = row.id_phone
        ? own.find((phone) => phone.id === Number(row.id_phone))
        : undefined;
      const pool = row.id_phone_group
        ? own.filter((phone) => members.get(Number(row.id_phone_group))?.has(phone.id))
        : own;
      return { pinned, pool };
    });
    const paced = new Set(
      pools.flatMap(({ pinned, pool }) =>
        (pinned ? [pinned] : pool).flatMap((phone) => (phone.rate ? [phone.id] : [])),
      ),
    );
    const nowMs = now.getTime();
    const { remaining, paces } = yield* this.lockedBudgets(phones, settings, now, paced);
    const quotas = yield* this.quotaBudgets(userIds, utcString(now));
    const mediaPaths = yield* this.mediaPathsOf(rows);
    const opened = new Map<number, OpenedData>();
    const bookings: Booking[] = [];
    // Phones whose turn comes within the claim's reach are all as soon as each other.
    const readyIn = (phoneId: number) => {
      const wait = (paces.get(phoneId)?.next ?? nowMs) - nowMs;
      return wait <= PACE_AHEAD_MS ? 0 : wait;
    };

    for (const [index, row] of rows.entries()) {
      const userId = Number(row.id_user);
      const { pinned, pool } = pools[index];
      const userSettings = settings.get(userId) ?? {};
      const limited = isSettingOn(userSettings, 'phone_limit');
      const bookedSlot = row.pace_slot === null ? null : Number(row.pace_slot);
      // A booking whose slot passed unclaimed (its workers were stopped) is not kept.
      const booking =
        bookedSlot !== null && bookedSlot >= nowMs - PACE_LATE_MS
          ? (pinned ? [pinned] : pool).find(
              (phone) => phone.id === Number(row.via_phone) && phone.status === 'available',
            )
          : undefined;
      const phone =
        pinned ??
        booking ??
        choosePhone(
          pool.map((candidate) => ({
            ...candidate,
            mms: this.adapters.find(candidate.adapter)?.capabilities.mms ?? false,
            remaining: remaining.get(candidate.id) ?? Infinity,
            readyIn: readyIn(candidate.id),
          })),
          {
            mms: Boolean(Number(row.mms)),
            phoneLimit: limited,
            phonePriority: isSettingOn(userSettings, 'phone_priority'),
          },
        );
      if (!phone) {
        refused.push({ row, phone: null, reason: noPhoneReason(row) });
        continue;
      }
      const adapter = this.adapters.find(phone.adapter);
      if (!adapter) {
        refused.push({ row, phone, reason: `The phone's adapter ${phone.adapter} is unknown.` });
        continue;
      }
      if (phone.status !== 'available') {
        refused.push({ row, phone, reason: UNAVAILABLE[phone.status] ?? UNAVAILABLE.unavailable });
        continue;
      }
      const left = remaining.get(phone.id) ?? Infinity;
      if (limited && left <= 0) {
        refused.push({ row, phone, reason: UNAVAILABLE.limit_reached });
        continue;
      }
      const data = opened.get(phone.id) ?? this.secrets.open(phone);
      opened.set(phone.id, data);
      if (data.unreadable.length > 0) {
        refused.push({ row, phone, reason: unreadableReason(data) });
        continue;
      }
      const outgoing = this.outgoing(row, adapter, mediaPaths);
      if ('reason' in outgoing) {
        refused.push({ row, phone, reason: outgoing.reason });
        continue;
      }
      const pace = paces.get(phone.id);
      let slot: number | null = null;
      if (pace) {
        if (booking === phone) {
          slot = bookedSlot;
        } else {
          slot = Math.max(pace.next, nowMs + PACE_LEAD_MS);
          pace.next = slot + pace.spacing;
          pace.moved = true;
          if (slot > nowMs + PACE_AHEAD_MS) {
            bookings.push({ id: row.id, phoneId: phone.id, slot });
            continue;
          }
        }
      }
      const budget = quotas.get(userId);
      let segments: number | null = null;
      if (budget) {
        segments = measureSms(outgoing.text).segments;
        const refusal = this.spendQuota(budget, segments, utcString(now));
        if (refusal) {
          if (pace && booking !== phone) {
            // The slot it took was the last given: the next row takes it.
            pace.next -= pace.spacing;
          }
          refused.push({ row, phone, reason: refusal });
          continue;
        }
      }
      remaining.set(phone.id, left - 1);
      claimed.push({
        row: { ...row, quota_segments: segments },
        phone,
        adapter,
        data: data.data,
        ...outgoing,
        slot,
      });
    }
    const stamp = utcString(now);
    for (const [userId, budget] of quotas) {
      if (budget.reserved > 0) {
        yield* this.repository.reserveQuota(userId, budget.reserved, stamp);
      }
    }
    for (const [phoneId, pace] of paces) {
      if (pace.moved) {
        yield* this.repository.savePace(phoneId, pace.next);
      }
    }
    if (bookings.length > 0) {
      yield* this.repository.book(bookings, stamp);
      this.pollUntil(bookings[bookings.length - 1].slot);
    }
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

  /**
   * The quotas of the users being claimed for, locked, renewed first when their period is over
   * and `auto_renew` is on (docs/dispatch.md#quotas).
   */
  private *quotaBudgets(userIds: readonly number[], now: string): Sql<Map<number, QuotaBudget>> {
    const budgets = new Map<number, QuotaBudget>();
    for (const stored of yield* this.repository.lockQuotas(userIds)) {
      const renewed = renewedAt(stored, now, this.config.timeZone);
      if (renewed) {
        yield* this.repository.saveRenewal(renewed, stored.start_date, now);
      }
      const quota = renewed ?? stored;
      budgets.set(quota.id_user, { quota, left: remainingOf(quota), reserved: 0 });
    }
    return budgets;
  }

  /** Reserves `segments` of the budget; or why the row cannot have them. */
  private spendQuota(budget: QuotaBudget, segments: number, now: string): string | null {
    const { quota } = budget;
    const end = utcToZone(quota.expiration_date, this.config.timeZone);
    if (isExpired(quota, now)) {
      return `${QUOTA_EXPIRED} on ${end} and does not renew itself: nothing is sent until the administrator sets it again.`;
    }
    if (segments > budget.left) {
      return (
        `${QUOTA_SPENT}: this message needs ${segments} SMS segment${segments > 1 ? 's' : ''} ` +
        `and ${budget.left} ${budget.left === 1 ? 'is' : 'are'} left until ${end}.`
      );
    }
    budget.left -= segments;
    budget.reserved += segments;
    return null;
  }

  /** Where the medias of `rows` are stored, by id: links in the text name them. */
  private *mediaPathsOf(rows: readonly OutboxRow[]): Sql<Map<number, string>> {
    const ids = [
      ...new Set(
        rows.flatMap(({ media_ids }) => (media_ids ? (JSON.parse(media_ids) as number[]) : [])),
      ),
    ];
    return new Map((yield* this.repository.mediaRows(ids)).map((media) => [media.id, media.path]));
  }

  /**
   * What the provider is handed: an MMS through a phone whose adapter sends them; otherwise, as
   * in RaspiSMS, the text followed by the links of its medias. Or why it cannot go.
   */
  private outgoing(
    row: OutboxRow,
    adapter: Adapter,
    mediaPaths: ReadonlyMap<number, string>,
  ): Pick<Claimed, 'text' | 'medias'> | { reason: string } {
    const links = (row.media_ids ? (JSON.parse(row.media_ids) as number[]) : []).flatMap((id) => {
      const path = mediaPaths.get(id);
      return path ? [{ path, mimetype: null, url: this.mediaUrl(path) }] : [];
    });
    const asMms = Boolean(Number(row.mms)) && adapter.capabilities.mms && links.length > 0;
    if (links.length > 0 && !asMms && !this.config.publicUrl) {
      return { reason: NO_MEDIA_LINKS };
    }
    const text =
      links.length > 0 && !asMms
        ? `${row.text}\n${links.map((link) => link.url).join(' - ')}`
        : row.text;
    if ([...text].length > MAX_TEXT_CHARACTERS) {
      return { reason: TOO_LONG_WITH_LINKS };
    }
    return { text, medias: asMms ? links : [] };
  }

  /**
   * What each limited phone may still send, counting sends in flight, and the sending slots of
   * the `paced` phones. The phones are locked first, so a concurrent claim on them waits, then
   * counts this one's claims and takes the slots after its.
   */
  private *lockedBudgets(
    phones: readonly PhoneRow[],
    settings: ReadonlyMap<number, Record<string, string>>,
    now: Date,
    paced: ReadonlySet<number>,
  ): Sql<{ remaining: Map<number, number>; paces: Map<number, Pace> }> {
    const remaining = new Map<number, number>();
    const limitedPhones = phones.filter((phone) =>
      isSettingOn(settings.get(Number(phone.id_user)) ?? {}, 'phone_limit'),
    );
    const limits =
      limitedPhones.length === 0
        ? []
        : yield* this.repository.limitsOf(limitedPhones.map((phone) => phone.id));
    const byPhone = new Map<number, LimitRow[]>();
    for (const limit of limits) {
      const phoneId = Number(limit.id_phone);
      const windows = byPhone.get(phoneId) ?? [];
      windows.push(limit);
      byPhone.set(phoneId, windows);
    }
    const locked = yield* this.repository.lockPhones(
      [...new Set([...byPhone.keys(), ...paced])].sort((a, b) => a - b),
    );
    const paces = new Map<number, Pace>();
    for (const [phoneId, { rate, nextMs }] of locked) {
      if (paced.has(phoneId)) {
        paces.set(phoneId, {
          next: nextMs ?? now.getTime(),
          spacing: slotSpacingMs(rate),
          moved: false,
        });
      }
    }
    for (const phone of limitedPhones) {
      const limits = byPhone.get(phone.id);
      if (!limits) {
        continue;
      }
      const windows = countingWindows(limits, now, this.config.timeZone);
      const spent = new Map<string, number>();
      for (const { since } of windows) {
        if (!spent.has(since)) {
          spent.set(since, yield* this.repository.spentSince(phone, since));
        }
      }
      remaining.set(
        phone.id,
        remainingVolume(windows, (since) => spent.get(since) ?? 0),
      );
    }
    return { remaining, paces };
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
    let result: SendResult;
    const started = performance.now();
    try {
      result = await adapter.send(data, {
        destination: row.destination,
        text,
        flash: Boolean(Number(row.flash)) && adapter.capabilities.flash,
        medias,
        idempotencyKey: idempotencyKey(row, text),
        callbackUrls: callbackUrls(this.config, phone.callback_token ?? null),
      });
    } catch (error) {
      this.logger.error({ err: error }, `The ${phone.adapter} adapter failed unexpectedly.`);
      result = {
        outcome: 'permanent',
        reason: `The ${phone.adapter} adapter failed unexpectedly; the server log holds the details.`,
      };
    }
    this.metrics.observeProviderCall(
      phone.adapter,
      result.outcome,
      (performance.now() - started) / 1000,
    );
    return { claimed, text, result };
  }

  /** Where the media is served (MediaController): only meaningful with PUBLIC_URL set. */
  private mediaUrl(path: string): string {
    return `${this.config.publicUrl ?? ''}${this.config.basePath}/media/${path}`;
  }

  /**
   * Records outcomes; transient failures with attempts left go back to the queue, and so do the
   * rows never sent, as they were. The entries recorded.
   */
  private *record(
    workerId: string,
    outcomes: readonly Outcome[],
    unsent: readonly Claimed[],
  ): Sql<readonly NewSended[]> {
    if (outcomes.length + unsent.length === 0) {
      return [];
    }
    const now = nowUtc();
    const mine = yield* this.repository.stillClaimed(
      [...outcomes.map((outcome) => outcome.claimed.row.id), ...unsent.map(({ row }) => row.id)],
      workerId,
    );
    const done: Array<{ row: OutboxRow; sended: NewSended; handed: boolean }> = [];
    const retried: QuotaChange[] = [];
    const requeued = unsent.filter(({ row }) => mine.has(row.id)).map(({ row }) => row);
    if (requeued.length > 0) {
      yield* this.repository.requeue(
        requeued.map((row) => row.id),
        now,
      );
      for (const row of requeued) {
        if (row.quota_segments !== null) {
          retried.push({ userId: Number(row.id_user), released: row.quota_segments, consumed: 0 });
        }
      }
    }
    for (const { claimed, text, result } of outcomes) {
      const { row, phone } = claimed;
      if (!mine.has(row.id)) {
        this.logger.warn(
          `Outbox row ${row.id} was recorded by the dead-worker sweep while this worker sent it.`,
        );
        continue;
      }
      const attempts = Number(row.attempts) + 1;
      const retriable =
        result.outcome === 'transient' ||
        (result.outcome === 'ambiguous' && claimed.adapter.capabilities.idempotent === true);
      if (retriable && attempts < this.config.dispatch.maxAttempts) {
        const delay = this.config.dispatch.retryBaseMs * 2 ** (attempts - 1);
        yield* this.repository.retryLater(
          row.id,
          attempts,
          utcString(new Date(Date.now() + delay)),
          result.reason,
          now,
        );
        if (row.quota_segments !== null) {
          retried.push({ userId: Number(row.id_user), released: row.quota_segments, consumed: 0 });
        }
        continue;
      }
      done.push({
        row,
        // A send that may have reached the provider is counted as one that did.
        handed: result.outcome === 'sent' || result.outcome === 'ambiguous',
        sended: sended(row, phone, now, text, recordedStatus(result), {
          uid: result.outcome === 'sent' ? result.uid : null,
          error:
            result.outcome === 'sent'
              ? (result.error ?? null)
              : retriable
                ? `${result.reason} (gave up after ${attempts} attempts)`
                : result.reason,
        }),
      });
    }
    yield* this.settleQuotas(retried, now);
    return yield* this.store(done, now);
  }

  private *recordRefused(refused: readonly Refused[], now: string): Sql<readonly NewSended[]> {
    return yield* this.store(
      refused.map(({ row, phone, reason }) => ({
        row,
        sended: sended(row, phone, now, row.text, 'failed', { uid: null, error: reason }),
      })),
      now,
    );
  }

  /**
   * Inserts the `sended` entries with their media links and removes their outbox rows; the
   * entries, for the caller to count once they are committed. The segments the rows reserved
   * are settled: consumed when the row was `handed` to a provider (by default, when its entry is
   * not `failed`: the sweep's `unknown` may have gone), given back otherwise.
   */
  *store(
    done: ReadonlyArray<{ row: OutboxRow; sended: NewSended; handed?: boolean }>,
    now: string,
  ): Sql<readonly NewSended[]> {
    if (done.length === 0) {
      return [];
    }
    yield* this.settleQuotas(
      done.flatMap(({ row, sended, handed }) =>
        row.quota_segments === null || row.quota_segments === undefined
          ? []
          : [
              {
                userId: Number(row.id_user),
                released: Number(row.quota_segments),
                consumed: (handed ?? sended.status !== 'failed') ? Number(row.quota_segments) : 0,
              },
            ],
      ),
      now,
    );
    const phoneIds = [...new Set(done.flatMap(({ sended }) => sended.id_phone ?? []))];
    const existing = yield* this.repository.existingPhones(phoneIds);
    const entries = done.map(({ sended }) =>
      sended.id_phone === null || existing.has(sended.id_phone)
        ? sended
        : { ...sended, id_phone: null },
    );
    const ids = yield* this.repository.record(entries, now);
    yield* this.repository.linkMedias(
      done.flatMap(({ row }, index) =>
        (row.media_ids ? (JSON.parse(row.media_ids) as number[]) : []).map((id_media) => ({
          id_media,
          id_sended: ids[index],
        })),
      ),
      now,
    );
    yield* this.repository.remove(done.map((entry) => entry.row.id));
    yield* this.queueSendEvents(
      done.map(({ row }, index) => ({ row, sended: entries[index] })),
      ids,
    );
    return done.map((entry) => entry.sended);
  }

  /**
   * Settles recorded sends against their users' quotas, user by user in id order (the order
   * claims lock them in), and queues the `quota` events the consumption brings about
   * (docs/dispatch.md#quotas).
   */
  private *settleQuotas(changes: readonly QuotaChange[], now: string): Sql<void> {
    const byUser = new Map<number, { released: number; consumed: number }>();
    for (const { userId, released, consumed } of changes) {
      const total = byUser.get(userId) ?? { released: 0, consumed: 0 };
      total.released += released;
      total.consumed += consumed;
      byUser.set(userId, total);
    }
    for (const userId of [...byUser.keys()].sort((a, b) => a - b)) {
      const { released, consumed } = byUser.get(userId)!;
      const present = yield* this.repository.settleQuota(userId, released, consumed, now);
      if (present && consumed > 0) {
        yield* this.queueQuotaEvents(userId, now);
      }
    }
  }

  /** The `quota` events the user's quota is due, each once per period. */
  private *queueQuotaEvents(userId: number, now: string): Sql<void> {
    const quota = yield* this.repository.quotaOf(userId);
    if (!quota) {
      return;
    }
    const settings = yield* this.repository.settingsOf(userId);
    const levels = dueAlerts(
      quota,
      closeThreshold(settings.alert_quota_limit_close),
      isSettingOn(settings, 'alert_quota_limit_reached'),
    );
    const events = [];
    for (const level of levels) {
      if (yield* this.repository.markQuotaAlerted(userId, level)) {
        events.push({
          userId,
          type: 'quota' as const,
          at: utcDate(now),
          payload: () => ({
            level,
            credit: quota.credit,
            additional: quota.additional,
            consumed: quota.consumed + quota.reserved,
            remaining: remainingOf(quota),
          }),
        });
      }
    }
    yield* queueEvents(events);
  }

  /** The `send_sms` events of entries just recorded, with the ids they were given. */
  private *queueSendEvents(
    done: ReadonlyArray<{ row: OutboxRow; sended: NewSended }>,
    ids: readonly number[],
  ): Sql<void> {
    const mediaIds = [
      ...new Set(
        done.flatMap(({ row }) => (row.media_ids ? (JSON.parse(row.media_ids) as number[]) : [])),
      ),
    ];
    const medias = new Map(
      (yield* this.repository.mediaRows(mediaIds)).map((media) => [media.id, media]),
    );
    const timeZone = this.config.timeZone;
    yield* queueEvents(
      done.map(({ row, sended }, index) => ({
        userId: sended.id_user,
        type: 'send_sms',
        at: utcDate(sended.at),
        payload: () => ({
          id: ids[index],
          at: utcToZone(sended.at, timeZone),
          status: sended.status,
          error: sended.error,
          text: sended.text,
          destination: sended.destination,
          origin: sended.id_phone,
          id_phone: sended.id_phone,
          tag: sended.tag,
          flash: sended.flash === 1,
          mms: sended.mms === 1,
          medias: (row.media_ids ? (JSON.parse(row.media_ids) as number[]) : []).flatMap(
            (id) => medias.get(id) ?? [],
          ),
          originating_scheduled: sended.originating_scheduled,
          segments: sended.segments,
          encoding: sended.encoding,
        }),
      })),
    );
  }
}

/** The `sended` entry of an outbox row. */
export function sended(
  row: OutboxRow,
  phone: Pick<PhoneRow, 'id' | 'adapter'> | null,
  now: string,
  text: string,
  status: string,
  outcome: { uid: string | null; error: string | null },
): NewSended {
  const { segments, encoding } = measureSms(text);
  return {
    id_user: Number(row.id_user),
    id_phone: phone?.id ?? null,
    at: now,
    text,
    destination: row.destination,
    flash: Number(row.flash),
    mms: Number(row.mms),
    status,
    error: outcome.error,
    uid: outcome.uid,
    adapter: phone?.adapter ?? '',
    tag: row.tag,
    originating_scheduled: Number(row.originating_scheduled),
    segments,
    encoding,
  };
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

/** The status an outcome is recorded with: what may have been sent is `unknown`, not `failed`. */
function recordedStatus(result: SendResult): string {
  switch (result.outcome) {
    case 'sent':
      return result.status ?? 'unknown';
    case 'ambiguous':
      return 'unknown';
    default:
      return 'failed';
  }
}

function noPhoneReason(row: OutboxRow): string {
  return row.id_phone_group
    ? 'No phone to send it: the phone group has no phone.'
    : 'No phone to send it: the user has no phone.';
}

/** Why a phone whose stored credentials do not decrypt does not send. */
function unreadableReason(opened: OpenedData): string {
  const clause = unreadableClause(opened.unreadable);
  return (
    `${clause.charAt(0).toUpperCase()}${clause.slice(1)}: send its adapter_data again with ` +
    'post_update_phone.'
  );
}
