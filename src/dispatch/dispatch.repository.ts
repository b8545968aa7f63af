import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { DriverRunner, runOn } from '../database/driver/runner';
import { select, Sql, write } from '../database/driver/sql';
import { CONTACT_ROW_COLUMNS, ContactRow, userContactsAfter } from '../contacts/contact-recipients';
import { QuotaRow, QuotaState, quotaState } from '../users/quota';
import { DEFAULT_SETTINGS } from '../users/settings';
import { utcString } from '../common/time/datetime';
import { countAll, CountKind } from '../messages/message-counts';

/** A scheduled message being dispatched. */
export interface DueScheduled {
  id: number;
  id_user: number;
  text: string;
  flash: number;
  mms: number;
  tag: string | null;
  id_phone: number | null;
  id_phone_group: number | null;
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
export interface NewOutboxRow {
  id_user: number;
  originating_scheduled: number;
  id_phone: number | null;
  id_phone_group: number | null;
  destination: string;
  text: string;
  flash: number;
  mms: number;
  tag: string | null;
  media_ids: string | null;
  /**
   * `queued`; `unrendered` when `text` is a template still to render with `render_input`; or
   * `rejected` when the recipient cannot be sent at all (`error` says why).
   */
  state: 'queued' | 'unrendered' | 'rejected';
  error: string | null;
  render_input: string | null;
}

/** A row whose text is a template, as the render reads it. */
export interface UnrenderedRow {
  id: number;
  text: string;
  media_ids: string | null;
  render_input: string | null;
}

/** A render's outcome for one row: its text, or why it has none. */
export type RenderedRow = { id: number } & ({ text: string } | { reason: string });

/** An outbox row as the sender claims it. */
export interface OutboxRow {
  id: number;
  id_user: number;
  originating_scheduled: number;
  id_phone: number | null;
  id_phone_group: number | null;
  destination: string;
  text: string;
  flash: number;
  mms: number;
  tag: string | null;
  media_ids: string | null;
  state: string;
  attempts: number;
  error: string | null;
  /** The segments its claim reserved of its user's quota; null without a quota. */
  quota_segments: number | null;
  /** With `pace_slot`: the paced phone whose sending slot the row was given. */
  via_phone: number | null;
  /** The sending slot (epoch ms) the row was given on `via_phone`; null: none. */
  pace_slot: number | string | null;
}

export interface PhoneRow {
  id: number;
  id_user: number;
  adapter: string;
  adapter_data: string | null;
  priority: number;
  status: string;
  /** Read for the phones a claim sends through: their callback URLs go with each send. */
  callback_token?: string | null;
  /** Messages per second at most; null: unpaced. */
  rate?: number | null;
}

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

export interface LimitRow {
  id_phone: number;
  volume: number;
  startpoint: string;
}

/** A `sended` row the sender records. */
export interface NewSended {
  id_user: number;
  id_phone: number | null;
  at: string;
  text: string;
  destination: string;
  flash: number;
  mms: number;
  status: string;
  error: string | null;
  uid: string | null;
  adapter: string;
  tag: string | null;
  originating_scheduled: number;
  segments: number;
  encoding: string;
}

/** Candidates read per row wanted when claiming or leasing on MySQL (see `lockReady`). */
const CANDIDATES_PER_ROW = 4;

/** Values per `IN (…)` list and rows per multi-row INSERT: far below SQLite's bound variables. */
const ROWS_PER_STATEMENT = 500;

const OUTBOX_COLUMNS: ReadonlyArray<keyof NewOutboxRow> = [
  'id_user',
  'originating_scheduled',
  'id_phone',
  'id_phone_group',
  'destination',
  'text',
  'flash',
  'mms',
  'tag',
  'media_ids',
  'state',
  'error',
  'render_input',
];

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
];

/**
 * Whether a message has recipients of a kind, or medias: the expansion reads only the kinds it
 * has.
 */
const HAS = (table: string, name: string) =>
  `EXISTS (SELECT 1 FROM ${table} x WHERE x.id_scheduled = s.id) AS has_${name}`;

const DUE_COLUMNS = [
  's.id, s.id_user, s.text, s.flash, s.mms, s.tag, s.id_phone, s.id_phone_group',
  's.expansion_phase, s.expansion_link, s.expansion_after',
  HAS('scheduled_number', 'numbers'),
  HAS('scheduled_contact', 'contacts'),
  HAS('scheduled_group', 'groups'),
  HAS('scheduled_conditional_group', 'conditions'),
  HAS('media_scheduled', 'medias'),
].join(', ');

const QUOTA_COLUMNS =
  'id_user, credit, additional, consumed, reserved, start_date, expiration_date, ' +
  'renew_interval, auto_renew, report_unused, report_unused_additional, alerted_close, ' +
  'alerted_reached';

/** A ContactRow's columns from the contact table joined as `c`. */
const CONTACT_COLUMNS = CONTACT_ROW_COLUMNS.map((column) => `c.${column}`).join(', ');

/** `?, ?, …` for `count` values. */
function marks(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/**
 * The dispatch's SQL, run on the driver (DriverRunner): it runs per batch of hundreds of rows,
 * where TypeORM's query runners and query builder would cost more than the database
 * (bench:dispatch). Statements that belong in a transaction are `Sql` bodies, composed by the
 * services and run whole by `transaction`. Claims take row locks with SKIP LOCKED on
 * MySQL/MariaDB so that workers never wait for, nor take, each other's rows; SQLite has a
 * single worker and a single writer.
 */
@Injectable()
export class DispatchRepository {
  readonly mysql: boolean;
  private readonly sql: DriverRunner;

  constructor(readonly dataSource: DataSource) {
    this.mysql = dataSource.options.type === 'mysql';
    this.sql = DriverRunner.for(dataSource);
  }

  /** `FOR UPDATE SKIP LOCKED` where the engine has row locks. */
  private get skipLocked(): string {
    return this.mysql ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /** Runs `body` in a transaction; READ COMMITTED on MySQL so counts see other workers' claims. */
  transaction<T>(body: Sql<T>): Promise<T> {
    return this.sql.transaction(body, true);
  }

  // Workers

  /** Registers the worker or records that it is alive (again, if a sweep had forgotten it). */
  async heartbeat(workerId: string, now: string): Promise<void> {
    await this.sql.run(
      write(
        'INSERT INTO worker (id, heartbeat_at, created_at) VALUES (?, ?, ?) ' +
          (this.mysql
            ? 'ON DUPLICATE KEY UPDATE heartbeat_at = VALUES(heartbeat_at), updated_at = VALUES(heartbeat_at)'
            : 'ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, updated_at = excluded.heartbeat_at'),
        [workerId, now, now],
      ),
    );
  }

  async unregisterWorker(workerId: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE id = ?', [workerId]));
  }

  async workers(): Promise<string[]> {
    const rows = await this.sql.run(select<{ id: string }>('SELECT id FROM worker'));
    return rows.map((row) => row.id);
  }

  async forgetWorkersExcept(workerId: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE id <> ?', [workerId]));
  }

  /** The live worker (heartbeat at or after `since`) that started first. */
  async oldestWorker(since: string): Promise<string | null> {
    const rows = await this.sql.run(
      select<{ id: string }>(
        'SELECT id FROM worker WHERE heartbeat_at >= ? ORDER BY created_at, id LIMIT 1',
        [since],
      ),
    );
    return rows[0]?.id ?? null;
  }

  /** Forgets workers silent since before `before`; their claims are then orphans. */
  async forgetDeadWorkers(before: string): Promise<void> {
    await this.sql.run(write('DELETE FROM worker WHERE heartbeat_at < ?', [before]));
  }

  // Expansion

  /**
   * Locks up to `limit` due scheduled messages of active users that no other worker holds,
   * oldest first. The candidates are found without locks, then locked by primary key: a locking
   * read through the join would lock the user rows too, and the `at` scan every due row.
   */
  *lockDue(now: string, limit: number): Sql<DueScheduled[]> {
    const due =
      'FROM scheduled s WHERE s.at <= ? AND ' +
      "EXISTS (SELECT 1 FROM user u WHERE u.id = s.id_user AND u.status = 'active') " +
      'ORDER BY s.at, s.id LIMIT ?';
    if (!this.mysql) {
      return yield* select<DueScheduled>(`SELECT ${DUE_COLUMNS} ${due}`, [now, limit]);
    }
    const candidates = yield* select<{ id: number }>(`SELECT s.id ${due}`, [now, limit]);
    if (candidates.length === 0) {
      return [];
    }
    return yield* select<DueScheduled>(
      `SELECT ${DUE_COLUMNS} FROM scheduled s WHERE s.id IN (${marks(candidates.length)}) ` +
        'AND s.at <= ? ORDER BY s.at, s.id FOR UPDATE SKIP LOCKED',
      [...candidates.map((candidate) => candidate.id), now],
    );
  }

  /** Locks the scheduled message `id` if it is still due and its user active, unless another worker holds it. */
  *lockDueById(id: number, now: string): Sql<DueScheduled | null> {
    const rows = yield* select<DueScheduled>(
      `SELECT ${DUE_COLUMNS} FROM scheduled s WHERE s.id = ? AND s.at <= ? AND ` +
        "EXISTS (SELECT 1 FROM user u WHERE u.id = s.id_user AND u.status = 'active')" +
        this.skipLocked,
      [id, now],
    );
    return rows[0] ?? null;
  }

  *settingsOf(userId: number): Sql<Record<string, string>> {
    const rows = yield* select<{ name: string; value: string | null }>(
      'SELECT name, value FROM setting WHERE id_user = ?',
      [userId],
    );
    const settings: Record<string, string> = { ...DEFAULT_SETTINGS };
    for (const row of rows) {
      settings[row.name] = row.value ?? '';
    }
    return settings;
  }

  /** Of `numbers`, those on the user's STOP list. */
  *stoppedAmong(userId: number, numbers: readonly string[]): Sql<Set<string>> {
    const stopped = new Set<string>();
    for (let start = 0; start < numbers.length; start += ROWS_PER_STATEMENT) {
      const chunk = numbers.slice(start, start + ROWS_PER_STATEMENT);
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
    for (let start = 0; start < ids.length; start += ROWS_PER_STATEMENT) {
      const chunk = ids.slice(start, start + ROWS_PER_STATEMENT);
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
    const placeholders = `(${marks(columns.length)})`;
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
      yield* write(
        `${this.mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE'} INTO outbox (${columns.join(', ')}) ` +
          `VALUES ${chunk.map(() => placeholders).join(', ')}`,
        chunk.flatMap((row) => [...OUTBOX_COLUMNS.map((column) => row[column]), 0, now, now]),
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
    for (let start = 0; start < scheduledIds.length; start += ROWS_PER_STATEMENT) {
      const chunk = scheduledIds.slice(start, start + ROWS_PER_STATEMENT);
      yield* write(`DELETE FROM scheduled WHERE id IN (${marks(chunk.length)})`, chunk);
    }
  }

  // Rendering

  /**
   * Up to `limit` rows whose text is still a template, oldest first, outside any transaction. On
   * MySQL they are first leased to `workerId` (`claimed_by`), so that workers render different
   * rows; a lease of a worker that stopped is free again once the sweep forgets the worker.
   * Two renders of a row are harmless: only the first one stored counts (`storeRendered`).
   */
  leaseUnrendered(workerId: string, limit: number): Promise<UnrenderedRow[]> {
    return this.sql.run(this.lease(workerId, limit));
  }

  private *lease(workerId: string, limit: number): Sql<UnrenderedRow[]> {
    const columns = 'id, text, media_ids, render_input';
    if (!this.mysql) {
      return yield* select<UnrenderedRow>(
        `SELECT ${columns} FROM outbox WHERE state = 'unrendered' ` +
          'ORDER BY next_attempt_at, id LIMIT ?',
        [limit],
      );
    }
    const free =
      "state = 'unrendered' AND (claimed_by IS NULL OR claimed_by = ? OR " +
      'NOT EXISTS (SELECT 1 FROM worker w WHERE w.id = outbox.claimed_by))';
    // Read without locks, as lockReady does (a locking scan would wait for the rows of a
    // campaign another worker is still expanding), and more than wanted: other workers may be
    // leasing some of them right now.
    const candidates = yield* select<{ id: number }>(
      `SELECT id FROM outbox WHERE ${free} ORDER BY next_attempt_at, id LIMIT ?`,
      [workerId, limit * CANDIDATES_PER_ROW],
    );
    if (candidates.length === 0) {
      return [];
    }
    const ids = candidates.map((candidate) => candidate.id);
    yield* write(
      `UPDATE outbox SET claimed_by = ? WHERE id IN (${marks(ids.length)}) AND ${free} ` +
        'ORDER BY next_attempt_at, id LIMIT ?',
      [workerId, ...ids, workerId, limit],
    );
    return yield* select<UnrenderedRow>(
      `SELECT ${columns} FROM outbox WHERE id IN (${marks(ids.length)}) ` +
        "AND state = 'unrendered' AND claimed_by = ? ORDER BY next_attempt_at, id",
      [...ids, workerId],
    );
  }

  /**
   * Stores renders in one statement: each row becomes `queued` with its text, or `rejected` with
   * the reason. Rows already rendered (by another worker) are left as they are.
   */
  async storeRendered(rows: readonly RenderedRow[], now: string): Promise<void> {
    if (rows.length === 0) {
      return;
    }
    await this.sql.run(
      this.updateFrom(
        ['id', 'state', 'text', 'error'],
        rows.map((row) =>
          'text' in row
            ? [row.id, 'queued', row.text, null]
            : [row.id, 'rejected', null, row.reason],
        ),
        (target) =>
          `${target}state = v.state, ${target}text = COALESCE(v.text, o.text), ` +
          `${target}error = v.error, ${target}render_input = NULL, ${target}claimed_by = NULL, ` +
          `${target}updated_at = ?`,
        "o.state = 'unrendered'",
        [now],
      ),
    );
  }

  /**
   * Updates outbox rows (as `o`) in one statement, joined by id to a table of `values` (`v`, the
   * first column the id): a CASE per column would cost rows × rows comparisons. `set` is given
   * the prefix that MySQL wants on the columns it sets and SQLite refuses; `params` are its.
   */
  private *updateFrom(
    columns: readonly string[],
    values: ReadonlyArray<readonly unknown[]>,
    set: (target: string) => string,
    where: string,
    params: readonly unknown[],
  ): Sql<void> {
    if (this.mysql) {
      const first = `SELECT ${columns.map((column) => `? AS ${column}`).join(', ')}`;
      yield* write(
        'UPDATE outbox o JOIN (' +
          values
            .map((_, index) => (index === 0 ? first : `SELECT ${marks(columns.length)}`))
            .join(' UNION ALL ') +
          `) v ON v.id = o.id SET ${set('o.')} WHERE ${where}`,
        [...values.flat(), ...params],
      );
      return;
    }
    const tuple = `(${marks(columns.length)})`;
    yield* write(
      `WITH v (${columns.join(', ')}) AS (VALUES ${values.map(() => tuple).join(', ')}) ` +
        `UPDATE outbox AS o SET ${set('')} FROM v WHERE o.id = v.id AND ${where}`,
      [...values.flat(), ...params],
    );
  }

  // Sending

  /**
   * Locks up to `limit` rows of `state` (queued and due, or rejected) that no one holds, oldest
   * first; booked rows are `lockBooked`'s.
   */
  lockReady(state: 'queued' | 'rejected', now: string, limit: number): Sql<OutboxRow[]> {
    return this.lockRows(
      'state = ? AND next_attempt_at <= ?',
      [state, now],
      'next_attempt_at, id',
      limit,
      'pace_slot IS NULL',
    );
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
   * `order`. On MySQL
   * the candidates are read without locks, then locked by primary key: a locking scan of the
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
    const columns =
      'id, id_user, originating_scheduled, id_phone, id_phone_group, destination, text, ' +
      'flash, mms, tag, media_ids, state, attempts, error, quota_segments, via_phone, pace_slot';
    if (!this.mysql) {
      return yield* select<OutboxRow>(
        `SELECT ${columns} FROM outbox WHERE ${where}${kept} ORDER BY ${order} LIMIT ?`,
        [...params, limit],
      );
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
    return yield* select<OutboxRow>(
      `SELECT ${columns} FROM outbox WHERE id IN (${marks(candidates.length)}) ` +
        `AND ${where}${kept} ORDER BY ${order} LIMIT ? FOR UPDATE SKIP LOCKED`,
      [...candidates.map((candidate) => candidate.id), ...params, limit],
    );
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
    for (let start = 0; start < bookings.length; start += ROWS_PER_STATEMENT) {
      const chunk = bookings.slice(start, start + ROWS_PER_STATEMENT);
      yield* this.updateFrom(
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

  // Quotas

  /**
   * The quotas of `userIds`, locked on MySQL: two claims for one user then run one after the
   * other, the second seeing the first's reservations. One lookup by the unique `id_user`; users
   * without a quota cost nothing more.
   */
  *lockQuotas(userIds: readonly number[]): Sql<QuotaState[]> {
    const rows = yield* select<QuotaRow>(
      `SELECT ${QUOTA_COLUMNS} FROM quota WHERE id_user IN (${marks(userIds.length)}) ` +
        `ORDER BY id_user${this.mysql ? ' FOR UPDATE' : ''}`,
      [...userIds],
    );
    return rows.map(quotaState);
  }

  /** The user's quota, in the caller's transaction (locked by the caller's earlier write). */
  *quotaOf(userId: number): Sql<QuotaState | null> {
    const rows = yield* select<QuotaRow>(`SELECT ${QUOTA_COLUMNS} FROM quota WHERE id_user = ?`, [
      userId,
    ]);
    return rows.length > 0 ? quotaState(rows[0]) : null;
  }

  /** Stores a renewal computed from the period that started at `previousStart`. */
  *saveRenewal(quota: QuotaState, previousStart: string, now: string): Sql<void> {
    yield* write(
      'UPDATE quota SET additional = ?, consumed = 0, start_date = ?, expiration_date = ?, ' +
        'alerted_close = 0, alerted_reached = 0, updated_at = ? WHERE id_user = ? AND start_date = ?',
      [
        quota.additional,
        quota.start_date,
        quota.expiration_date,
        now,
        quota.id_user,
        previousStart,
      ],
    );
  }

  /** Reserves segments of the user's quota for sends being claimed. */
  *reserveQuota(userId: number, segments: number, now: string): Sql<void> {
    yield* write('UPDATE quota SET reserved = reserved + ?, updated_at = ? WHERE id_user = ?', [
      segments,
      now,
      userId,
    ]);
  }

  /**
   * Settles reservations once their sends are recorded: `released` segments are no longer
   * reserved, `consumed` of them were taken by a provider. Whether the quota was there.
   */
  *settleQuota(userId: number, released: number, consumed: number, now: string): Sql<boolean> {
    const { affected } = yield* write(
      'UPDATE quota SET reserved = CASE WHEN reserved > ? THEN reserved - ? ELSE 0 END, ' +
        'consumed = consumed + ?, updated_at = ? WHERE id_user = ?',
      [released, released, consumed, now, userId],
    );
    return affected > 0;
  }

  /** Notes that the period had its `level` event; false when it already had (another worker). */
  *markQuotaAlerted(userId: number, level: 'close' | 'reached'): Sql<boolean> {
    const column = level === 'close' ? 'alerted_close' : 'alerted_reached';
    const { affected } = yield* write(
      `UPDATE quota SET ${column} = 1 WHERE id_user = ? AND ${column} = 0`,
      [userId],
    );
    return affected > 0;
  }

  /** Of `ids`, those still claimed by `workerId` (locked): a dead-worker sweep may have taken some. */
  *stillClaimed(ids: readonly number[], workerId: string): Sql<Set<number>> {
    const rows = yield* select<{ id: number }>(
      `SELECT id FROM outbox WHERE id IN (${marks(ids.length)}) AND claimed_by = ?` +
        (this.mysql ? ' FOR UPDATE' : ''),
      [...ids, workerId],
    );
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Inserts `sended` rows, and counts them (message-counts.ts); their ids, in order. */
  *record(rows: readonly NewSended[], now: string): Sql<number[]> {
    const ids: number[] = [];
    const columns = [...SENDED_COLUMNS, 'created_at'];
    const placeholders = `(${marks(columns.length)})`;
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
      // Both engines number one statement's rows consecutively (InnoDB with the default
      // `innodb_autoinc_lock_mode` for a simple multi-row INSERT).
      const { firstId } = yield* write(
        `INSERT INTO sended (${columns.join(', ')}) VALUES ` +
          chunk.map(() => placeholders).join(', '),
        chunk.flatMap((row) => [...SENDED_COLUMNS.map((column) => row[column]), now]),
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
    for (let start = 0; start < links.length; start += ROWS_PER_STATEMENT) {
      const chunk = links.slice(start, start + ROWS_PER_STATEMENT);
      yield* write(
        'INSERT INTO media_sended (id_media, id_sended, created_at) VALUES ' +
          chunk.map(() => '(?, ?, ?)').join(', '),
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
    for (let start = 0; start < ids.length; start += ROWS_PER_STATEMENT) {
      const chunk = ids.slice(start, start + ROWS_PER_STATEMENT);
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

  /** Rows in flight for a worker that is not in the `worker` table any more, locked. */
  lockOrphans(limit: number): Sql<OutboxRow[]> {
    return select<OutboxRow>(
      'SELECT o.id, o.id_user, o.originating_scheduled, o.id_phone, o.id_phone_group, ' +
        'o.destination, o.text, o.flash, o.mms, o.tag, o.media_ids, o.state, o.attempts, ' +
        'o.error, o.quota_segments, o.via_phone, o.pace_slot FROM outbox o ' +
        "WHERE o.state = 'sending' AND NOT EXISTS (SELECT 1 FROM worker w WHERE w.id = o.claimed_by) " +
        `ORDER BY o.id LIMIT ?${this.skipLocked}`,
      [limit],
    );
  }

  *adaptersOf(phoneIds: readonly number[]): Sql<Map<number, string>> {
    if (phoneIds.length === 0) {
      return new Map();
    }
    const rows = yield* select<{ id: number; adapter: string }>(
      `SELECT id, adapter FROM phone WHERE id IN (${marks(phoneIds.length)})`,
      [...phoneIds],
    );
    return new Map(rows.map((row) => [Number(row.id), row.adapter]));
  }

  /** Phones whose adapter listens for receipts and inbound messages, across users. */
  async phonesWithAdapters(adapters: readonly string[]): Promise<PhoneRow[]> {
    if (adapters.length === 0) {
      return [];
    }
    return this.sql.run(
      select<PhoneRow>(
        'SELECT id, id_user, adapter, adapter_data, priority, status FROM phone ' +
          `WHERE adapter IN (${marks(adapters.length)}) AND status <> 'disabled' ORDER BY id`,
        [...adapters],
      ),
    );
  }

  /** Medias as events show them; their paths also make the links of a text. */
  *mediaRows(ids: readonly number[]): Sql<Array<{ id: number; id_user: number; path: string }>> {
    if (ids.length === 0) {
      return [];
    }
    const rows = yield* select<{ id: number; id_user: number; path: string }>(
      `SELECT id, id_user, path FROM media WHERE id IN (${marks(ids.length)})`,
      [...ids],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      id_user: Number(row.id_user),
      path: row.path,
    }));
  }
}
