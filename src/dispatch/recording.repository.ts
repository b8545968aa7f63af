import { Injectable } from '@nestjs/common';
import { select, Sql, write } from '../database/driver/sql';
import { chunks, marks, rowMarks, rowValues } from '../database/driver/placeholders';
import { countAll, CountKind } from '../messages/message-counts';
import { NewSended, OutboxRow } from './dispatch-rows';
import { Refusal, storedRefusals } from '../common/failover/refusals';
import { DispatchSql, ROWS_PER_STATEMENT } from './dispatch-sql';

const SENDED_COLUMNS: ReadonlyArray<keyof NewSended> = [
  'id_user',
  'id_phone',
  'at',
  'text',
  'destination',
  'flash',
  'mms',
  'status',
  'error',
  'uid',
  'adapter',
  'tag',
  'originating_scheduled',
  'segments',
  'encoding',
  'refusals',
];

/**
 * The record's SQL: the outcomes of sends become `sended` entries with their media links and
 * leave the outbox, or go back to the queue.
 */
@Injectable()
export class RecordingRepository extends DispatchSql {
  /** Of `ids`, those still claimed by `workerId` (locked): a dead-worker sweep may have taken some. */
  *stillClaimed(ids: readonly number[], workerId: string): Sql<Set<number>> {
    const rows = yield* select<{ id: number }>(
      `SELECT id FROM outbox WHERE id IN (${marks(ids.length)}) AND claimed_by = ?` +
        (this.mysql ? ' FOR UPDATE' : ''),
      [...ids, workerId],
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  /**
   * Puts claimed rows that were never handed to their provider (their sending slot passed, or
   * the worker stopped first) back in the queue as they were before their claim.
   */
  *requeue(ids: readonly number[], now: string): Sql<void> {
    yield* write(
      "UPDATE outbox SET state = 'queued', next_attempt_at = ?, via_phone = NULL, " +
        'pace_slot = NULL, quota_segments = NULL, claimed_by = NULL, claimed_at = NULL, ' +
        `updated_at = ? WHERE id IN (${marks(ids.length)})`,
      [now, now, ...ids],
    );
  }

  /**
   * Whether the route of `row` (its user's phones, or its phone group's) has an available phone
   * other than `excluded`.
   */
  *hasOtherPhone(row: OutboxRow, excluded: readonly number[]): Sql<boolean> {
    const inGroup = row.id_phone_group
      ? ' AND id IN (SELECT id_phone FROM phone_group_phone WHERE id_phone_group = ?)'
      : '';
    const found = yield* select<{ id: number }>(
      "SELECT id FROM phone WHERE id_user = ? AND status = 'available' " +
        `AND id NOT IN (${marks(excluded.length)})${inGroup} LIMIT 1`,
      [row.id_user, ...excluded, ...(row.id_phone_group ? [row.id_phone_group] : [])],
    );
    return found.length > 0;
  }

  /**
   * Puts a claimed row back in the queue, due now, to go through another phone than those of
   * `refusals`, its attempts starting again (docs/dispatch.md#failover).
   */
  *failOver(id: number, refusals: readonly Refusal[], now: string): Sql<void> {
    yield* write(
      "UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = ?, via_phone = NULL, " +
        'pace_slot = NULL, quota_segments = NULL, claimed_by = NULL, claimed_at = NULL, ' +
        'error = NULL, refusals = ?, updated_at = ? WHERE id = ?',
      [now, storedRefusals(refusals), now, id],
    );
  }

  /** A phone's refusal of a recipient that goes through another phone, for its reliability. */
  *recordRefusal(userId: number, phoneId: number, at: string): Sql<void> {
    yield* write('INSERT INTO send_refusal (id_user, id_phone, at) VALUES (?, ?, ?)', [
      userId,
      phoneId,
      at,
    ]);
  }

  /** Inserts `sended` rows, and counts them (message-counts.ts); their ids, in order. */
  *record(rows: readonly NewSended[], now: string): Sql<number[]> {
    const ids: number[] = [];
    const columns = [...SENDED_COLUMNS, 'created_at'];
    for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) {
      // Both engines number one statement's rows consecutively (InnoDB with the default
      // `innodb_autoinc_lock_mode` for a simple multi-row INSERT).
      const { firstId } = yield* write(
        `INSERT INTO sended (${columns.join(', ')}) VALUES ` +
          rowMarks(chunk.length, columns.length),
        rowValues(chunk, SENDED_COLUMNS, [now], (row, column) =>
          column === 'refusals' ? storedRefusals(row.refusals) : row[column],
        ),
      );
      ids.push(...chunk.map((_, index) => firstId + index));
    }
    yield* countAll(
      this.mysql,
      rows.map(({ id_user, id_phone, at, status }) => ({
        id_user,
        id_phone,
        at,
        kind: status as CountKind,
      })),
      1,
    );
    return ids;
  }

  *linkMedias(
    links: ReadonlyArray<{ id_media: number; id_sended: number }>,
    now: string,
  ): Sql<void> {
    for (const chunk of chunks(links, ROWS_PER_STATEMENT)) {
      yield* write(
        'INSERT INTO media_sended (id_media, id_sended, created_at) VALUES ' +
          rowMarks(chunk.length, 3),
        chunk.flatMap((link) => [link.id_media, link.id_sended, now]),
      );
    }
  }

  /** Of `phoneIds`, those that still exist: a phone may be deleted while its sends are in flight. */
  *existingPhones(phoneIds: readonly number[]): Sql<Set<number>> {
    if (phoneIds.length === 0) {
      return new Set();
    }
    const rows = yield* select<{ id: number }>(
      `SELECT id FROM phone WHERE id IN (${marks(phoneIds.length)})`,
      [...phoneIds],
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  *remove(ids: readonly number[]): Sql<void> {
    for (const chunk of chunks(ids, ROWS_PER_STATEMENT)) {
      yield* write(`DELETE FROM outbox WHERE id IN (${marks(chunk.length)})`, chunk);
    }
  }

  /** Puts a row back in the queue for another attempt at `at`. */
  *retryLater(id: number, attempts: number, at: string, error: string, now: string): Sql<void> {
    yield* write(
      "UPDATE outbox SET state = 'queued', attempts = ?, next_attempt_at = ?, error = ?, " +
        'via_phone = NULL, pace_slot = NULL, quota_segments = NULL, claimed_by = NULL, ' +
        'claimed_at = NULL, updated_at = ? WHERE id = ?',
      [attempts, at, error, now, id],
    );
  }
}
