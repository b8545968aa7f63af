import { Injectable } from '@nestjs/common';
import { select, Sql, write } from '../database/driver/sql';
import { chunks, marks } from '../database/driver/placeholders';
import { utcString } from '../common/time/datetime';
import { STORED_PRIORITY } from '../scheduled/entities/message-priority';
import {
  outboxRow,
  OutboxRow,
  OUTBOX_ROW_COLUMNS,
  PhoneRow,
  StoredOutboxRow,
} from './dispatch-rows';
import type { Deferred } from './claim-plan';
import { CANDIDATES_PER_ROW, DispatchSql, PRIORITIES, ROWS_PER_STATEMENT } from './dispatch-sql';

/** A paced phone as a claim locks it. */
export interface PaceState {
  rate: number;
  /** When its next sending slot is free (epoch ms); null: now. */
  nextMs: number | null;
}

/** A row given a sending slot on a paced phone that is too far ahead to claim it now. */
export interface Booking {
  id: number;
  phoneId: number;
  slot: number;
}

/** A booked row's slot, that a high-priority row may take. */
export interface BookedSlot {
  id: number;
  slot: number;
}

export interface LimitRow {
  id_phone: number;
  volume: number;
  startpoint: string;
}

const COLUMNS = OUTBOX_ROW_COLUMNS.join(', ');

/**
 * The claim's SQL: the outbox rows ready to send, locked, the phones, limits and sending slots
 * they are routed by, and the claim that marks them as being sent.
 */
@Injectable()
export class ClaimsRepository extends DispatchSql {
  /**
   * Locks up to `limit` rows of `state` (queued and due, or rejected) that no one holds, the
   * high-priority ones first, then oldest first (docs/dispatch.md#priority); booked rows are
   * `lockBooked`'s. Each priority is a range of `outbox (state, priority, next_attempt_at)` read
   * in its order, so a campaign's backlog costs the high rows behind it nothing. `priorities`:
   * those to read, high first.
   */
  *lockReady(
    state: 'queued' | 'rejected',
    now: string,
    limit: number,
    priorities: readonly number[] = PRIORITIES,
  ): Sql<OutboxRow[]> {
    const rows: OutboxRow[] = [];
    for (const priority of priorities) {
      if (rows.length < limit) {
        rows.push(
          ...(yield* this.lockRows(
            'state = ? AND priority = ? AND next_attempt_at <= ?',
            [state, priority, now],
            'next_attempt_at, id',
            limit - rows.length,
            'pace_slot IS NULL',
          )),
        );
      }
    }
    return rows;
  }

  /**
   * Locks up to `limit` normal-priority rows booked on the paced phone `phoneId` whose slot comes
   * after `afterMs` (epoch ms), soonest first, that no one holds: the slots high-priority rows
   * may take (docs/dispatch.md#priority). Read at the start of the range of
   * `outbox (via_phone, state, priority, pace_slot)`, whatever the phone's backlog.
   */
  *lockSwappable(phoneId: number, afterMs: number, limit: number): Sql<BookedSlot[]> {
    const rows = yield* this.lockRows(
      "via_phone = ? AND state = 'queued' AND priority = ? AND pace_slot > ?",
      [phoneId, STORED_PRIORITY.normal, afterMs],
      'pace_slot, id',
      limit,
    );
    return rows.map((row) => ({ id: row.id, slot: Number(row.pace_slot) }));
  }

  /**
   * Locks up to `limit` booked rows whose slot comes by `untilMs` (epoch ms), soonest first: ahead
   * of the rest of the queue, so that a backlog of other phones' rows never makes them miss it.
   */
  lockBooked(untilMs: number, limit: number): Sql<OutboxRow[]> {
    return this.lockRows("state = 'queued' AND pace_slot <= ?", [untilMs], 'pace_slot, id', limit);
  }

  /**
   * Locks up to `limit` rows that no one holds, matching `where` (and `keep`, when given), in
   * `order`. On MySQL the candidates are read without locks, then locked by primary key: a locking scan of the
   * index range would step over every row of a campaign another worker is still expanding
   * (uncommitted, so locked), at every poll.
   */
  private *lockRows(
    where: string,
    params: readonly unknown[],
    order: string,
    limit: number,
    keep?: string,
  ): Sql<OutboxRow[]> {
    if (limit <= 0) {
      return [];
    }
    const kept = keep ? ` AND ${keep}` : '';
    if (!this.mysql) {
      const rows = yield* select<StoredOutboxRow>(
        `SELECT ${COLUMNS} FROM outbox WHERE ${where}${kept} ORDER BY ${order} LIMIT ?`,
        [...params, limit],
      );
      return rows.map(outboxRow);
    }
    // More candidates than wanted: other workers may be claiming some of them right now. The
    // candidates come from the index alone; `keep` is checked on the rows.
    const candidates = yield* select<{ id: number }>(
      `SELECT id FROM outbox WHERE ${where} ORDER BY ${order} LIMIT ?`,
      [...params, limit * CANDIDATES_PER_ROW],
    );
    if (candidates.length === 0) {
      return [];
    }
    const rows = yield* select<StoredOutboxRow>(
      `SELECT ${COLUMNS} FROM outbox WHERE id IN (${marks(candidates.length)}) ` +
        `AND ${where}${kept} ORDER BY ${order} LIMIT ? FOR UPDATE SKIP LOCKED`,
      [...candidates.map((candidate) => candidate.id), ...params, limit],
    );
    return rows.map(outboxRow);
  }

  phonesOf(userIds: readonly number[]): Sql<PhoneRow[]> {
    return select<PhoneRow>(
      'SELECT id, id_user, adapter, adapter_data, priority, status, callback_token, rate ' +
        `FROM phone WHERE id_user IN (${marks(userIds.length)}) ORDER BY id`,
      [...userIds],
    );
  }

  /**
   * Locks phones whose limits or sending slots a claim is about to spend, in id order: two claims
   * on the same phone then run one after the other, the second counting the first's sends in
   * flight and taking the slots after the first's. The rate of each paced phone, as locked (a
   * change of rate may have committed since the phone was read), and when its next slot is free
   * (epoch ms; null: now).
   */
  *lockPhones(phoneIds: readonly number[]): Sql<Map<number, PaceState>> {
    if (phoneIds.length === 0) {
      return new Map();
    }
    const rows = yield* select<{
      id: number;
      rate: number | string | null;
      pace_next_ms: number | string | null;
    }>(
      `SELECT id, rate, pace_next_ms FROM phone WHERE id IN (${marks(phoneIds.length)}) ` +
        `ORDER BY id${this.mysql ? ' FOR UPDATE' : ''}`,
      [...phoneIds],
    );
    return new Map(
      rows.flatMap((row) =>
        row.rate === null
          ? []
          : [
              [
                Number(row.id),
                {
                  rate: Number(row.rate),
                  nextMs: row.pace_next_ms === null ? null : Number(row.pace_next_ms),
                },
              ] as const,
            ],
      ),
    );
  }

  /** Where a paced phone's next free slot now is, the phone being locked by `lockPhones`. */
  *savePace(phoneId: number, nextMs: number): Sql<void> {
    yield* write('UPDATE phone SET pace_next_ms = ? WHERE id = ?', [Math.ceil(nextMs), phoneId]);
  }

  /**
   * Gives queued rows their phone's sending slots without claiming them (booked): `lockReady`
   * leaves them to `lockBooked`, which takes them a little before their turn, so that they never
   * stand before rows that can go now. `next_attempt_at` says when they go.
   */
  *book(bookings: readonly Booking[], now: string): Sql<void> {
    for (const chunk of chunks(bookings, ROWS_PER_STATEMENT)) {
      yield* this.updateOutbox(
        ['id', 'via_phone', 'pace_slot', 'next_attempt_at'],
        chunk.map((booking) => [
          booking.id,
          booking.phoneId,
          booking.slot,
          utcString(new Date(booking.slot)),
        ]),
        (target) =>
          `${target}via_phone = v.via_phone, ${target}pace_slot = v.pace_slot, ` +
          `${target}next_attempt_at = v.next_attempt_at, ${target}updated_at = ?`,
        "o.state = 'queued'",
        [now],
      );
    }
  }

  /**
   * Puts rows whose send window is closed back in the queue until it opens, without the sending
   * slot they may have been booked (docs/dispatch.md#send-windows): one statement per opening.
   */
  *defer(deferred: readonly Deferred[], now: string): Sql<void> {
    const byOpening = new Map<number, number[]>();
    for (const { id, until } of deferred) {
      const ids = byOpening.get(until) ?? [];
      ids.push(id);
      byOpening.set(until, ids);
    }
    for (const [until, ids] of byOpening) {
      for (const chunk of chunks(ids, ROWS_PER_STATEMENT)) {
        yield* write(
          'UPDATE outbox SET next_attempt_at = ?, via_phone = NULL, pace_slot = NULL, ' +
            `updated_at = ? WHERE id IN (${marks(chunk.length)}) AND state = 'queued'`,
          [utcString(new Date(until)), now, ...chunk],
        );
      }
    }
  }

  phoneGroupMembers(
    groupIds: readonly number[],
  ): Sql<Array<{ id_phone_group: number; id_phone: number }>> {
    return select<{ id_phone_group: number; id_phone: number }>(
      'SELECT id_phone_group, id_phone FROM phone_group_phone ' +
        `WHERE id_phone_group IN (${marks(groupIds.length)})`,
      [...groupIds],
    );
  }

  limitsOf(phoneIds: readonly number[]): Sql<LimitRow[]> {
    return select<LimitRow>(
      'SELECT id_phone, volume, startpoint FROM phone_limit ' +
        `WHERE id_phone IN (${marks(phoneIds.length)}) ORDER BY id`,
      [...phoneIds],
    );
  }

  /**
   * What a phone has spent since `since`: its `sended` rows plus its sends in flight (claimed,
   * not yet recorded), so that concurrent claims count each other's.
   */
  *spentSince(phone: Pick<PhoneRow, 'id' | 'id_user'>, since: string): Sql<number> {
    // Served by sended (id_user, id_phone, at) and outbox (via_phone, state).
    const rows = yield* select<{ spent: number | string }>(
      'SELECT (SELECT COUNT(*) FROM sended WHERE id_user = ? AND id_phone = ? AND at >= ?) + ' +
        "(SELECT COUNT(*) FROM outbox WHERE via_phone = ? AND state = 'sending') AS spent",
      [phone.id_user, phone.id, since, phone.id],
    );
    return Number(rows[0]?.spent ?? 0);
  }

  /**
   * Marks rows as being sent by `workerId` through `phoneId`, each having reserved
   * `quotaSegments` of its user's quota (null: the user has none).
   */
  *claim(
    ids: readonly number[],
    phoneId: number | null,
    quotaSegments: number | null,
    workerId: string,
    now: string,
  ): Sql<void> {
    yield* write(
      "UPDATE outbox SET state = 'sending', via_phone = ?, quota_segments = ?, claimed_by = ?, " +
        `claimed_at = ?, updated_at = ? WHERE id IN (${marks(ids.length)})`,
      [phoneId, quotaSegments, workerId, now, now, ...ids],
    );
  }
}
