import { marks } from '../database/driver/placeholders';
import { select, Sql, write } from '../database/driver/sql';

/*
 * A scheduled message with many numbers is written in several transactions, so that none holds
 * the database (on SQLite, the event loop and the only connection) for long: its row first,
 * hidden (`scheduled.hidden`, migration HiddenScheduled), then its numbers in bounded parts, and
 * last one short transaction that makes it visible, its real `send_after` set and its idempotency
 * key and medias written. While hidden, the listings, counts, updates and deletions leave it
 * out, and its `send_after` is HIDDEN_SEND_AFTER, so the dispatch never finds it due. A hidden
 * message whose upload failed is removed by that upload; one whose process died is removed by
 * the dispatch worker once it has not moved for ABANDONED_AFTER_MS.
 */

/** The `send_after` of a hidden message: never due. */
export const HIDDEN_SEND_AFTER = '9999-12-31 23:59:59';

/**
 * A hidden message that has not moved for this long was left by a process that stopped while
 * writing it: a part of its numbers takes milliseconds, all 200,000 a CSV may bring seconds.
 */
export const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/**
 * Numbers removed per statement when a hidden message is removed: the message's row alone would
 * take every number with it (foreign keys) in one long statement.
 */
export const NUMBERS_PER_REMOVAL = 5000;

/**
 * Hidden messages that have not moved since `before` (UTC): created then, and no part of their
 * numbers written since (each part moves `updated_at`). Found by the `(hidden, created_at)` index.
 */
export function* abandonedHidden(before: string, limit: number): Sql<number[]> {
  const rows = yield* select<{ id: number | string }>(
    'SELECT id FROM scheduled WHERE hidden = 1 AND created_at < ? ' +
      'AND (updated_at IS NULL OR updated_at < ?) ORDER BY created_at LIMIT ?',
    [before, before, limit],
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Removes up to NUMBERS_PER_REMOVAL numbers of the hidden message `id`, and the message itself
 * (its links with it) once it has none left; whether it is gone. A visible message is left alone.
 */
export function* removeHiddenPart(id: number): Sql<boolean> {
  const [hidden] = yield* select<{ id: number | string }>(
    'SELECT id FROM scheduled WHERE id = ? AND hidden = 1',
    [id],
  );
  if (hidden === undefined) {
    return true;
  }
  const numbers = yield* select<{ id: number | string }>(
    'SELECT id FROM scheduled_number WHERE id_scheduled = ? ORDER BY id LIMIT ?',
    [id, NUMBERS_PER_REMOVAL],
  );
  if (numbers.length > 0) {
    const ids = numbers.map((row) => Number(row.id));
    yield* write(`DELETE FROM scheduled_number WHERE id IN (${marks(ids.length)})`, ids);
    return false;
  }
  yield* write('DELETE FROM scheduled WHERE id = ? AND hidden = 1', [id]);
  return true;
}
