import { Injectable } from '@nestjs/common';
import { AdapterDataCipher } from '../adapters/adapter-data.cipher';
import { AdapterRegistry } from '../adapters/adapter.registry';
import { countingWindows, remainingVolume } from '../common/limits/remaining-volume';
import { nowUtc, utcString } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { Sql } from '../database/driver/sql';
import { STORED_PRIORITY } from '../scheduled/entities/message-priority';
import { isSettingOn } from '../users/settings';
import { Claimed, Pace, planClaims, Refused } from './claim-plan';
import { pacedPhones, routes, slotsToTake } from './claim-routes';
import { BookedSlot, ClaimsRepository, LimitRow } from './claims.repository';
import { PRIORITIES } from './dispatch-sql';
import { NewSended, OutboxRow, PhoneRow } from './dispatch-rows';
import { PACE_AHEAD_MS, slotSpacingMs } from './pacing';
import { QuotaAccountingService } from './quota-accounting.service';
import { RecordingService } from './recording.service';

/**
 * What a claim took: rows to send, how many rows it handled, refused ones included, the
 * entries of those refused, and the last sending slot it booked (null: none).
 */
export interface Batch {
  claimed: Claimed[];
  handled: number;
  recorded: readonly NewSended[];
  bookedUntil: number | null;
}

/**
 * Claims the next batch in one transaction: locks the rows ready to send, reads and locks what
 * routing them spends (phones, limits, sending slots, quotas), plans the claim (claim-plan.ts),
 * then writes it: refused rows recorded, rows outside their send window put back until it opens,
 * reservations, slots and bookings saved, the rest marked as being sent by the worker
 * (docs/dispatch.md#claims).
 */
@Injectable()
export class ClaimsService {
  constructor(
    private readonly repository: ClaimsRepository,
    private readonly quotas: QuotaAccountingService,
    private readonly recording: RecordingService,
    private readonly adapters: AdapterRegistry,
    private readonly secrets: AdapterDataCipher,
    private readonly config: AppConfig,
  ) {}

  /** Claims the next batch for `workerId`, committed. */
  claimNext(workerId: string): Promise<Batch> {
    return this.repository.transaction(this.claim(workerId, false));
  }

  /**
   * Claims the high-priority rows ready to send, and nothing else, committed: those that came
   * due while a batch is being sent go alongside it rather than after it
   * (docs/dispatch.md#priority).
   */
  claimHigh(workerId: string): Promise<Batch> {
    return this.repository.transaction(this.claim(workerId, true));
  }

  private *claim(workerId: string, highOnly: boolean): Sql<Batch> {
    const now = nowUtc();
    const size = this.config.dispatch.batchSize;
    const rejected = highOnly ? [] : yield* this.repository.lockReady('rejected', now, size);
    const booked = highOnly
      ? []
      : yield* this.repository.lockBooked(Date.now() + PACE_AHEAD_MS, size - rejected.length);
    const queued = [
      ...booked,
      ...(yield* this.repository.lockReady(
        'queued',
        now,
        size - rejected.length - booked.length,
        highOnly ? [STORED_PRIORITY.high] : PRIORITIES,
      )),
    ];
    if (rejected.length + queued.length === 0) {
      return { claimed: [], handled: 0, recorded: [], bookedUntil: null };
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
    let bookedUntil: number | null = null;
    if (queued.length > 0) {
      const routed = yield* this.route(queued, new Date());
      claimed.push(...routed.claimed);
      refused.push(...routed.refused);
      bookedUntil = routed.bookedUntil;
    }
    const recorded = yield* this.recording.recordRefused(refused, now);
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
    return { claimed, handled: rejected.length + queued.length, recorded, bookedUntil };
  }

  /**
   * Reads and locks what routing the queued `rows` needs, plans their claim (`planClaims`), and
   * saves what it spent: quota reservations, sending slots, bookings.
   */
  private *route(
    rows: readonly OutboxRow[],
    now: Date,
  ): Sql<{ claimed: Claimed[]; refused: Refused[]; bookedUntil: number | null }> {
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
    const routed = routes(rows, phones, members);
    const { remaining, paces } = yield* this.lockedBudgets(
      phones,
      settings,
      now,
      pacedPhones(routed),
    );
    // Under the phones' locks, as every change of their bookings.
    const swappable = new Map<number, BookedSlot[]>();
    for (const [phoneId, count] of slotsToTake(rows, routed)) {
      if (paces.has(phoneId)) {
        swappable.set(
          phoneId,
          yield* this.repository.lockSwappable(phoneId, now.getTime() + PACE_AHEAD_MS, count),
        );
      }
    }
    const stamp = utcString(now);
    const quotas = yield* this.quotas.budgets(userIds, stamp);
    const mediaIds = [...new Set(rows.flatMap((row) => row.media_ids))];
    const mediaPaths = new Map(
      (yield* this.repository.mediaRows(mediaIds)).map((media) => [media.id, media.path]),
    );
    const plan = planClaims(
      {
        rows,
        routes: routed,
        now,
        settings,
        remaining,
        paces,
        swappable,
        quotas,
        mediaPaths,
        timeZone: this.config.timeZone,
        publicUrl: this.config.publicUrl,
        basePath: this.config.basePath,
      },
      {
        adapter: (name) => this.adapters.find(name),
        open: (phone) => this.secrets.open(phone),
      },
    );
    yield* this.repository.defer(plan.deferred, stamp);
    yield* this.quotas.reserve(plan.reserved, stamp);
    for (const [phoneId, next] of plan.paces) {
      yield* this.repository.savePace(phoneId, next);
    }
    let bookedUntil: number | null = null;
    if (plan.bookings.length > 0) {
      yield* this.repository.book(plan.bookings, stamp);
      bookedUntil = Math.max(...plan.bookings.map((booking) => booking.slot));
    }
    return { claimed: plan.claimed, refused: plan.refused, bookedUntil };
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
        paces.set(phoneId, { next: nextMs ?? now.getTime(), spacing: slotSpacingMs(rate) });
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
}
