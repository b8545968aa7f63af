import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PAGE_SIZE } from '../common/paging/cursor';
import { nowUtc } from '../common/time/datetime';
import { marks } from '../database/driver/placeholders';
import { Received } from '../received/entities/received.entity';
import { ConversationKey, Direction, MessageKey } from './conversations.params';

/** A conversation of a page: its number and the time of its newest message (UTC). */
export interface ConversationHead {
  number: string;
  lastAt: string;
}

export interface LastMessage {
  direction: Direction;
  text: string;
}

export interface ThreadMessage {
  direction: Direction;
  id: number;
  /** UTC. */
  at: string;
  text: string;
  status: string;
  id_phone: number | null;
}

/** Each side of a conversation: its table and the column holding the correspondent. */
const SIDES = [
  { table: 'sended', column: 'destination', direction: 'sent' },
  { table: 'received', column: 'origin', direction: 'received' },
] as const;

type Side = (typeof SIDES)[number];

/** Rows read at a time while walking a table for the numbers of a page. */
const WALK_BATCH = 100;

/** How far a walk of one table has gone, newest first. */
interface Walk {
  side: Side;
  /** Every row at or after it (up to the page's bound) has been read; null before the first. */
  below: string | null;
  done: boolean;
}

/**
 * Conversations are not stored: they are the caller's sent and received messages by number. A
 * page of them is found by walking both tables by `(id_user, at)` from the newest, collecting
 * distinct numbers, and looking each up on `(id_user, destination, at)` and `(id_user, origin,
 * at)`; a page costs about the messages of its 25 conversations, whatever the tables hold.
 */
@Injectable()
export class ConversationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Up to PAGE_SIZE + 1 conversations newest first (by their newest message, then by number,
   * descending), after `before` when given; the one more tells that a next page exists.
   */
  async page(userId: number, before?: ConversationKey): Promise<ConversationHead[]> {
    const found = new Map<string, string>();
    const walks: Walk[] = SIDES.map((side) => ({ side, below: null, done: false }));
    const wanted = PAGE_SIZE + 1;
    for (;;) {
      const heads = sortHeads(found);
      const open = walks.filter((walk) => !walk.done);
      // A number not seen yet has its newest message below every walk's position.
      const highest = open.reduce<string | null>(
        (top, walk) =>
          walk.below !== null && (top === null || walk.below > top) ? walk.below : top,
        null,
      );
      const unseenBelow = open.some((walk) => walk.below === null) ? null : highest;
      if (
        open.length === 0 ||
        (heads.length >= wanted && unseenBelow !== null && heads[wanted - 1].lastAt >= unseenBelow)
      ) {
        return heads.slice(0, wanted);
      }
      const walk =
        open.find((candidate) => candidate.below === null) ??
        open.reduce((top, candidate) => (candidate.below! > top.below! ? candidate : top));
      const numbers = await this.walkOn(userId, walk, before?.at);
      const fresh = numbers.filter((number) => !found.has(number));
      for (const [number, lastAt] of await this.newest(userId, fresh)) {
        if (before === undefined || isOlder({ lastAt, number }, before)) {
          found.set(number, lastAt);
        } else {
          // Shown on an earlier page: marked seen, left out.
          found.set(number, '');
        }
      }
    }
  }

  /**
   * The numbers of the next rows of a walk, whole seconds at a time (rows of one second have no
   * order the index keeps), and moves the walk past them.
   */
  private async walkOn(userId: number, walk: Walk, atMost?: string): Promise<string[]> {
    const { table, column } = walk.side;
    const bound = walk.below ?? atMost;
    const operator = walk.below === null ? '<=' : '<';
    const rows = await this.dataSource.query<Array<{ at: string; number: string }>>(
      `SELECT at, ${column} AS number FROM ${table} WHERE id_user = ?` +
        (bound === undefined ? '' : ` AND at ${operator} ?`) +
        ` ORDER BY at DESC LIMIT ${WALK_BATCH}`,
      bound === undefined ? [userId] : [userId, bound],
    );
    if (rows.length < WALK_BATCH) {
      walk.done = true;
      walk.below = rows.at(-1)?.at ?? walk.below;
      return rows.map((row) => row.number);
    }
    const last = rows[rows.length - 1].at;
    // A range with its order rather than `at = ?`: SQLite would read that one on the
    // `(id_user, destination, at)` index it covers, the whole of the user's entries.
    const sameSecond = await this.dataSource.query<Array<{ number: string }>>(
      `SELECT ${column} AS number FROM ${table} WHERE id_user = ? AND at <= ? AND at >= ? ` +
        'ORDER BY at DESC',
      [userId, last, last],
    );
    walk.below = last;
    return [...rows.filter((row) => row.at > last), ...sameSecond].map((row) => row.number);
  }

  /** The time of each number's newest message, sent or received (UTC). */
  private async newest(userId: number, numbers: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(numbers)];
    if (unique.length === 0) {
      return new Map();
    }
    const latest = (side: Side) =>
      `(SELECT at FROM ${side.table} WHERE id_user = ? AND ${side.column} = n.number ` +
      `ORDER BY at DESC LIMIT 1)`;
    const rows = await this.dataSource.query<
      Array<{ number: string; s: string | null; r: string | null }>
    >(
      `SELECT n.number AS number, ${latest(SIDES[0])} AS s, ${latest(SIDES[1])} AS r FROM (` +
        unique.map(() => 'SELECT ? AS number').join(' UNION ALL ') +
        ') n',
      [userId, userId, ...unique],
    );
    return new Map(rows.map((row) => [row.number, maxAt(row.s, row.r)]));
  }

  /** Each number's newest message, the sent one first when both are of the same second. */
  async lastMessages(
    userId: number,
    numbers: string[],
  ): Promise<Map<string, LastMessage & { at: string }>> {
    if (numbers.length === 0) {
      return new Map();
    }
    const parts: string[] = [];
    const values: unknown[] = [];
    numbers.forEach((number, index) => {
      for (const side of SIDES) {
        parts.push(
          `SELECT * FROM (SELECT '${side.direction}' AS direction, ${side.column} AS number, at, ` +
            `id, text FROM ${side.table} WHERE id_user = ? AND ${side.column} = ? ` +
            `ORDER BY at DESC, id DESC LIMIT 1) m${side.direction}${index}`,
        );
        values.push(userId, number);
      }
    });
    const rows = await this.dataSource.query<
      Array<{ direction: Direction; number: string; at: string; text: string }>
    >(parts.join(' UNION ALL '), values);
    const last = new Map<string, LastMessage & { at: string }>();
    for (const row of rows) {
      const kept = last.get(row.number);
      if (
        kept === undefined ||
        row.at > kept.at ||
        (row.at === kept.at && row.direction === 'sent')
      ) {
        last.set(row.number, { direction: row.direction, text: row.text, at: row.at });
      }
    }
    return last;
  }

  /** Unread received messages per number, among `numbers`. */
  async unreadCounts(userId: number, numbers: string[]): Promise<Map<string, number>> {
    if (numbers.length === 0) {
      return new Map();
    }
    const rows = await this.dataSource.query<Array<{ number: string; unread: number | string }>>(
      `SELECT origin AS number, COUNT(*) AS unread FROM received WHERE id_user = ? AND ` +
        `origin IN (${marks(numbers.length)}) AND status = 'unread' GROUP BY origin`,
      [userId, ...numbers],
    );
    return new Map(rows.map((row) => [row.number, Number(row.unread)]));
  }

  /** The caller's contact of each number (the first made when several have it). */
  async contacts(
    userId: number,
    numbers: string[],
  ): Promise<Map<string, { id: number; name: string }>> {
    if (numbers.length === 0) {
      return new Map();
    }
    const rows = await this.dataSource.query<Array<{ id: number; name: string; number: string }>>(
      `SELECT id, name, number FROM contact WHERE id_user = ? AND ` +
        `number IN (${marks(numbers.length)}) ORDER BY id`,
      [userId, ...numbers],
    );
    const byNumber = new Map<string, { id: number; name: string }>();
    for (const row of rows) {
      if (!byNumber.has(row.number)) {
        byNumber.set(row.number, { id: Number(row.id), name: row.name });
      }
    }
    return byNumber;
  }

  /** Whether the caller received a message from `origin`. */
  async hasReceivedFrom(userId: number, origin: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      'SELECT id FROM received WHERE id_user = ? AND origin = ? LIMIT 1',
      [userId, origin],
    );
    return rows.length > 0;
  }

  /**
   * Up to PAGE_SIZE + 1 messages with `number`, newest first (by time, a sent message after a
   * received one of the same second, then by id), before `before` when given.
   */
  async thread(userId: number, number: string, before?: MessageKey): Promise<ThreadMessage[]> {
    const limit = PAGE_SIZE + 1;
    const sides = await Promise.all(
      SIDES.map(async (side) => {
        const [condition, values] = beforeCondition(side.direction, before);
        const rows = await this.dataSource.query<Array<Omit<ThreadMessage, 'direction'>>>(
          `SELECT id, at, text, status, id_phone FROM ${side.table} WHERE id_user = ? AND ` +
            `${side.column} = ?${condition} ORDER BY at DESC, id DESC LIMIT ${limit}`,
          [userId, number, ...values],
        );
        return rows.map((row): ThreadMessage => ({
          direction: side.direction,
          id: Number(row.id),
          at: row.at,
          text: row.text,
          status: row.status,
          id_phone: row.id_phone === null ? null : Number(row.id_phone),
        }));
      }),
    );
    return sides
      .flat()
      .sort((a, b) => compareMessages(b, a))
      .slice(0, limit);
  }

  /** Marks the caller's unread messages from `number` read; how many there were. */
  async markRead(userId: number, number: string): Promise<number> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(Received)
      .set({ status: 'read', updated_at: nowUtc() })
      .where('id_user = :userId AND origin = :number AND status = :unread', {
        userId,
        number,
        unread: 'unread',
      })
      .execute();
    return result.affected ?? 0;
  }
}

/** Newest first; equal times by number, descending, so that every page has one order. */
function sortHeads(found: Map<string, string>): ConversationHead[] {
  return [...found]
    .filter(([, lastAt]) => lastAt !== '')
    .map(([number, lastAt]) => ({ number, lastAt }))
    .sort((a, b) => (isOlder(a, { at: b.lastAt, number: b.number }) ? 1 : -1));
}

function isOlder(head: ConversationHead, key: ConversationKey): boolean {
  return head.lastAt < key.at || (head.lastAt === key.at && head.number < key.number);
}

function maxAt(a: string | null, b: string | null): string {
  return a === null ? (b ?? '') : b === null || a > b ? a : b;
}

const DIRECTION_ORDER: Record<Direction, number> = { received: 0, sent: 1 };

export function compareMessages(a: MessageKey, b: MessageKey): number {
  if (a.at !== b.at) {
    return a.at < b.at ? -1 : 1;
  }
  if (a.direction !== b.direction) {
    return DIRECTION_ORDER[a.direction] - DIRECTION_ORDER[b.direction];
  }
  return a.id - b.id;
}

/** The rows of one side that come before `before` in a thread's order. */
function beforeCondition(direction: Direction, before?: MessageKey): [string, unknown[]] {
  if (before === undefined) {
    return ['', []];
  }
  const order = DIRECTION_ORDER[direction] - DIRECTION_ORDER[before.direction];
  if (order < 0) {
    return [' AND at <= ?', [before.at]];
  }
  if (order > 0) {
    return [' AND at < ?', [before.at]];
  }
  return [' AND at <= ? AND (at < ? OR id < ?)', [before.at, before.at, before.id]];
}
