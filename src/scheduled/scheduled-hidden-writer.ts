import { setImmediate } from 'node:timers/promises';
import { nowUtc } from '../common/time/datetime';
import { DriverRunner } from '../database/driver/runner';
import { DriverSql, insertTree } from '../database/driver/group-commit';
import { chunks } from '../database/driver/placeholders';
import { Sql, write } from '../database/driver/sql';
import { HIDDEN_SEND_AFTER, removeHiddenPart } from '../messages/hidden-messages';
import { NewScheduled, RecipientNumber } from './scheduled-message';
import { ScheduledRows } from './scheduled-rows';

/**
 * Numbers written per transaction. A message with more is written hidden, in parts, and made
 * visible last (src/messages/hidden-messages.ts): on SQLite a part holds the event loop and the
 * only connection for a few milliseconds, where 200,000 numbers in one transaction held them for
 * 260 ms, and on MySQL the API's other inserts no longer wait in the group commit for the whole
 * file (bench:api BENCH_ONLY=upload).
 */
export const NUMBERS_PER_TRANSACTION = 5000;

/**
 * Writes a message of more than NUMBERS_PER_TRANSACTION numbers hidden, its numbers in parts with
 * the event loop let go between them, then makes it visible, with its idempotency key and medias,
 * in a transaction shared with the messages of concurrent requests; a failure on the way removes
 * what was written. Nothing of it is listed, counted or dispatched before that last commit.
 */
export class HiddenScheduledWriter {
  constructor(
    private readonly sql: DriverSql,
    private readonly runner: DriverRunner,
    private readonly rows: ScheduledRows,
  ) {}

  /** The new message's id, once it is visible. */
  async create(message: NewScheduled): Promise<number> {
    const stamp = [nowUtc(), null];
    const id = await this.sql.insert(this.rows.hiddenMessage(message, HIDDEN_SEND_AFTER, stamp));
    try {
      for (const part of chunks(message.numbers, NUMBERS_PER_TRANSACTION)) {
        await setImmediate();
        await this.runner.transaction(this.numbersOf(id, part, stamp));
      }
      // The UPDATE's id is not the message's: its children are given the message's.
      await this.sql.insert({
        sql:
          'UPDATE scheduled SET hidden = 0, send_after = ?, updated_at = NULL ' +
          'WHERE id = ? AND hidden = 1',
        parameters: [message.sendAfter, id],
        children: () => [
          ...(message.keep ? [message.keep(id)] : []),
          ...this.rows.medias(message, id, stamp),
        ],
      });
    } catch (error) {
      await this.removeHidden(id);
      throw error;
    }
    return id;
  }

  /** Removes the hidden message `id` in bounded parts, letting the event loop go between them. */
  private async removeHidden(id: number): Promise<void> {
    while (!(await this.runner.transaction(removeHiddenPart(id)))) {
      await setImmediate();
    }
  }

  /**
   * Part of a hidden message's numbers, and its `updated_at` moved on: the worker removes a
   * hidden message that has not moved for ABANDONED_AFTER_MS, however long the whole upload takes.
   */
  private *numbersOf(
    scheduledId: number,
    numbers: readonly RecipientNumber[],
    stamp: unknown[],
  ): Sql<void> {
    const { affected } = yield* write(
      'UPDATE scheduled SET updated_at = ? WHERE id = ? AND hidden = 1',
      [nowUtc(), scheduledId],
    );
    if (affected === 0) {
      throw new Error(
        `Hidden scheduled message ${scheduledId} was removed while its numbers were written.`,
      );
    }
    for (const statement of this.rows.numberRows(scheduledId, numbers, stamp)) {
      yield* insertTree(statement);
    }
  }
}
