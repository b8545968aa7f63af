import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { runOn } from '../database/driver/runner';
import { select, Sql, write } from '../database/driver/sql';
import { chunks, marks, rowMarks, rowValues } from '../database/driver/placeholders';
import { CONTACT_ROW_COLUMNS, ContactRow, userContactsAfter } from '../contacts/contact-recipients';
import { OUTBOX_RECIPIENT_COLUMNS, OutboxRecipient } from './dispatch-rows';
import { DispatchSql, PRIORITIES, ROWS_PER_STATEMENT } from './dispatch-sql';

/** A scheduled message being dispatched. */
export interface DueScheduled {
  id: number;
  id_user: number;
  /** UTC. */
  at: string;
  /** Minutes after `at` within which it may still be sent; null: no limit. */
  validity: number | null;
  text: string;
  flash: number;
  mms: number;
  tag: string | null;
  id_phone: number | null;
  id_phone_group: number | null;
  /** 1: high (docs/dispatch.md#priority), expanded before the normal (0) messages due. */
  priority: number;
  /** Its send window, as stored (docs/dispatch.md#send-windows); null: any time. */
  effective_window: string | null;
  /** Where its expansion stands (see ExpansionService): null while nothing is queued. */
  expansion_phase: string | null;
  expansion_link: number | null;
  expansion_after: number | null;
  /** Whether it has recipients of each kind, and medias (0 or 1). */
  has_numbers: number;
  has_contacts: number;
  has_groups: number;
  has_conditions: number;
  has_medias: number;
}

export interface NumberRecipient {
  id: number;
  number: string;
  data: string | null;
}

/** A conditional group of a message, by its link, in link order. */
export interface ConditionLink {
  link_id: number;
  expression: string;
}

/** One outbox row as the expansion writes it. */
export interface NewOutboxRow extends OutboxRecipient {
  media_ids: string | null;
  /**
   * `queued`; `unrendered` when `text` is a template still to render with `render_input`; or
   * `rejected` when the recipient cannot be sent at all (`error` says why).
   */
  state: 'queued' | 'unrendered' | 'rejected';
  error: string | null;
  render_input: string | null;
}

const OUTBOX_COLUMNS: ReadonlyArray<keyof NewOutboxRow> = [
  ...OUTBOX_RECIPIENT_COLUMNS,
  'error',
  'render_input',
];

/**
 * Whether a message has recipients of a kind, or medias: the expansion reads only the kinds it
 * has.
 */
const HAS = (table: string, name: string) =>
  `EXISTS (SELECT 1 FROM ${table} x WHERE x.id_scheduled = s.id) AS has_${name}`;

const DUE_COLUMNS = [
  's.id, s.id_user, s.at, s.validity, s.text, s.flash, s.mms, s.tag, s.id_phone, s.id_phone_group, s.priority',
  's.effective_window',
  's.expansion_phase, s.expansion_link, s.expansion_after',
  HAS('scheduled_number', 'numbers'),
  HAS('scheduled_contact', 'contacts'),
  HAS('scheduled_group', 'groups'),
  HAS('scheduled_conditional_group', 'conditions'),
  HAS('media_scheduled', 'medias'),
].join(', ');

/** A ContactRow's columns from the contact table joined as `c`. */
const CONTACT_COLUMNS = CONTACT_ROW_COLUMNS.map((column) => `c.${column}`).join(', ');

/** The expansion's SQL: due messages, their recipients, and the outbox rows they become. */
@Injectable()
export class ExpansionRepository extends DispatchSql {
  /**
   * Locks up to `limit` due scheduled messages of active users that no other worker holds, the
   * high-priority ones first, then oldest first: a message sent with priority high is expanded
   * before the rest of a large campaign due earlier (docs/dispatch.md#priority). A message is
   * due from its `send_after`, when its send window opens (docs/dispatch.md#send-windows). Each
   * priority is a range of `scheduled (priority, send_after)`, read in its order.
   */
  *lockDue(now: string, limit: number): Sql<DueScheduled[]> {
    const due: DueScheduled[] = [];
    for (const priority of PRIORITIES) {
      if (due.length < limit) {
        due.push(...(yield* this.lockDueOf(priority, now, limit - due.length)));
      }
    }
    return due;
  }

  /**
   * `lockDue` for one priority. The candidates are found without locks, then locked by primary
   * key: a locking read through the join would lock the user rows too, and the scan every
   * due row.
   */
  private *lockDueOf(priority: number, now: string, limit: number): Sql<DueScheduled[]> {
    const due =
      'FROM scheduled s WHERE s.priority = ? AND s.send_after <= ? AND ' +
      "EXISTS (SELECT 1 FROM user u WHERE u.id = s.id_user AND u.status = 'active') " +
      'ORDER BY s.send_after, s.id LIMIT ?';
    if (!this.mysql) {
      return yield* select<DueScheduled>(`SELECT ${DUE_COLUMNS} ${due}`, [priority, now, limit]);
    }
    const candidates = yield* select<{ id: number }>(`SELECT s.id ${due}`, [priority, now, limit]);
    if (candidates.length === 0) {
      return [];
    }
    return yield* select<DueScheduled>(
      `SELECT ${DUE_COLUMNS} FROM scheduled s WHERE s.id IN (${marks(candidates.length)}) ` +
        'AND s.send_after <= ? ORDER BY s.send_after, s.id FOR UPDATE SKIP LOCKED',
      [...candidates.map((candidate) => candidate.id), now],
    );
  }

  /** Locks the scheduled message `id` if it is still due and its user active, unless another worker holds it. */
  *lockDueById(id: number, now: string): Sql<DueScheduled | null> {
    const rows = yield* select<DueScheduled>(
      `SELECT ${DUE_COLUMNS} FROM scheduled s WHERE s.id = ? AND s.send_after <= ? AND ` +
        "EXISTS (SELECT 1 FROM user u WHERE u.id = s.id_user AND u.status = 'active')" +
        this.skipLocked,
      [id, now],
    );
    return rows[0] ?? null;
  }

  /** Of `numbers`, those on the user's STOP list. */
  *stoppedAmong(userId: number, numbers: readonly string[]): Sql<Set<string>> {
    const stopped = new Set<string>();
    for (const chunk of chunks(numbers, ROWS_PER_STATEMENT)) {
      const rows = yield* select<{ number: string }>(
        `SELECT number FROM smsstop WHERE id_user = ? AND number IN (${marks(chunk.length)})`,
        [userId, ...chunk],
      );
      rows.forEach((row) => stopped.add(row.number));
    }
    return stopped;
  }

  numbersPage(scheduledId: number, afterId: number, limit: number): Sql<NumberRecipient[]> {
    return select<NumberRecipient>(
      'SELECT id, number, data FROM scheduled_number WHERE id_scheduled = ? AND id > ? ' +
        'ORDER BY id LIMIT ?',
      [scheduledId, afterId, limit],
    );
  }

  /** The numbers of several messages, message by message in id order, up to `limit` in all. */
  numbersOf(
    scheduledIds: readonly number[],
    limit: number,
  ): Sql<Array<NumberRecipient & { id_scheduled: number }>> {
    return select<NumberRecipient & { id_scheduled: number }>(
      'SELECT id_scheduled, id, number, data FROM scheduled_number ' +
        `WHERE id_scheduled IN (${marks(scheduledIds.length)}) ORDER BY id_scheduled, id LIMIT ?`,
      [...scheduledIds, limit],
    );
  }

  /** The message's own contacts, in the order they were linked. */
  directContactsPage(
    scheduledId: number,
    afterLinkId: number,
    limit: number,
  ): Sql<Array<ContactRow & { link_id: number }>> {
    return select<ContactRow & { link_id: number }>(
      `SELECT l.id AS link_id, ${CONTACT_COLUMNS} ` +
        'FROM scheduled_contact l JOIN contact c ON c.id = l.id_contact ' +
        'WHERE l.id_scheduled = ? AND l.id > ? ORDER BY l.id LIMIT ?',
      [scheduledId, afterLinkId, limit],
    );
  }

  /** The contacts of the message's groups, group by group in link order. */
  groupContactsPage(
    scheduledId: number,
    after: { link: number; member: number },
    limit: number,
  ): Sql<Array<ContactRow & { link_id: number; member_id: number }>> {
    return select<ContactRow & { link_id: number; member_id: number }>(
      `SELECT l.id AS link_id, m.id AS member_id, ${CONTACT_COLUMNS} ` +
        'FROM scheduled_group l JOIN group_contact m ON m.id_group = l.id_group ' +
        'JOIN contact c ON c.id = m.id_contact ' +
        'WHERE l.id_scheduled = ? AND (l.id > ? OR (l.id = ? AND m.id > ?)) ' +
        'ORDER BY l.id, m.id LIMIT ?',
      [scheduledId, after.link, after.link, after.member, limit],
    );
  }

  *conditionsOf(scheduledId: number): Sql<ConditionLink[]> {
    const rows = yield* select<{ link_id: number; expression: string | null }>(
      'SELECT l.id AS link_id, g.condition AS expression FROM scheduled_conditional_group l ' +
        'JOIN conditional_group g ON g.id = l.id_conditional_group ' +
        'WHERE l.id_scheduled = ? ORDER BY l.id',
      [scheduledId],
    );
    return rows.map((row) => ({ link_id: Number(row.link_id), expression: row.expression ?? '' }));
  }

  /** A page of the user's contacts in id order, outside of any transaction. */
  userContactsPage(userId: number, afterId: number, limit: number): Promise<ContactRow[]> {
    return this.sql.run(userContactsAfter(userId, afterId, limit));
  }

  /** Of the user's contacts `ids`, those that still exist, in id order. */
  *contactsByIds(userId: number, ids: readonly number[]): Sql<ContactRow[]> {
    const contacts: ContactRow[] = [];
    for (const chunk of chunks(ids, ROWS_PER_STATEMENT)) {
      contacts.push(
        ...(yield* select<ContactRow>(
          `SELECT ${CONTACT_ROW_COLUMNS.join(', ')} FROM contact ` +
            `WHERE id_user = ? AND id IN (${marks(chunk.length)}) ORDER BY id`,
          [userId, ...chunk],
        )),
      );
    }
    return contacts;
  }

  *mediaIdsOf(scheduledId: number): Sql<number[]> {
    const rows = yield* select<{ id_media: number }>(
      'SELECT id_media FROM media_scheduled WHERE id_scheduled = ? ORDER BY id',
      [scheduledId],
    );
    return rows.map((row) => Number(row.id_media));
  }

  /**
   * Queues recipients. A destination already queued for the same message is dropped by the
   * unique `(originating_scheduled, destination)`: rows come in recipient order, so the first
   * occurrence wins.
   */
  *queueRows(rows: readonly NewOutboxRow[], now: string): Sql<void> {
    const columns = [...OUTBOX_COLUMNS, 'attempts', 'next_attempt_at', 'created_at'];
    for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) {
      yield* write(
        `${this.mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE'} INTO outbox (${columns.join(', ')}) ` +
          `VALUES ${rowMarks(chunk.length, columns.length)}`,
        rowValues(chunk, OUTBOX_COLUMNS, [0, now, now]),
      );
    }
  }

  /** `queueRows` in the transaction `manager` holds. */
  queue(manager: EntityManager, rows: readonly NewOutboxRow[], now: string): Promise<void> {
    return runOn(manager, this.queueRows(rows, now));
  }

  /** Records how far the message's expansion went. */
  *saveCursor(
    scheduledId: number,
    cursor: { phase: string; link: number; after: number },
  ): Sql<void> {
    yield* write(
      'UPDATE scheduled SET expansion_phase = ?, expansion_link = ?, expansion_after = ? ' +
        'WHERE id = ?',
      [cursor.phase, cursor.link, cursor.after, scheduledId],
    );
  }

  /** The scheduled messages go once dispatched; their links go with them (foreign keys). */
  *deleteScheduled(scheduledIds: readonly number[]): Sql<void> {
    for (const chunk of chunks(scheduledIds, ROWS_PER_STATEMENT)) {
      yield* write(`DELETE FROM scheduled WHERE id IN (${marks(chunk.length)})`, chunk);
    }
  }
}
