import { chunks, rowMarks } from '../database/driver/placeholders';
import { Sql, write } from '../database/driver/sql';

/*
 * The `message_count` table (migration DashboardStatistics): the user's messages per phone, kind
 * and bucket, so that the dashboard's daily counts read a few hundred counters instead of grouping
 * every message of the period. Each message is counted twice, in its UTC day (`YYYY-MM-DD`) and in
 * its UTC quarter-hour (`YYYY-MM-DD HH:MM`): a local day is its nearest UTC day corrected by the
 * quarter-hours between the two midnights (src/stats/daily-counts.ts), as every time zone's offset
 * is a multiple of 15 minutes. Every write of `sended` or `received` changes the counters in its
 * own transaction, with one statement for all its rows: the dispatch records hundreds of entries
 * per transaction. A message without a phone is not counted (nor by get_sms_status_stats), and a
 * phone's counters go with it when it is deleted, as its messages then lose it.
 */

/** What a counter counts: sent messages by their current status, or received messages. */
export type CountKind = 'unknown' | 'delivered' | 'failed' | 'received';

/** A message as counted. */
export interface CountedMessage {
  id_user: number;
  id_phone: number | null;
  /** UTC `YYYY-MM-DD HH:MM:SS`. */
  at: string;
  kind: CountKind;
}

/** Counters per upsert: five values each, far below SQLite's bound variables. */
const COUNTERS_PER_STATEMENT = 500;

/** The UTC quarter-hour holding `at` (`YYYY-MM-DD HH:MM:SS`), as `YYYY-MM-DD HH:MM`. */
export function quarterHourOf(at: string): string {
  const minutes = Math.floor(Number(at.slice(14, 16)) / 15) * 15;
  return `${at.slice(0, 14)}${String(minutes).padStart(2, '0')}`;
}

/**
 * Adds `sign` (1: written, -1: deleted) for each message to its two counters. The counters are
 * changed in the order of their key, so that two transactions on MySQL take their row locks in
 * the same order and do not deadlock on each other.
 */
export function* countMessages(
  mysql: boolean,
  messages: ReadonlyArray<{ message: CountedMessage; sign: 1 | -1 }>,
): Sql<void> {
  // The messages summed by what they share first: a transaction of the dispatch records hundreds
  // of entries of one user, phone, status and time, which make two counters between them.
  const alike = new Map<string, { message: CountedMessage; phone: number; nb: number }>();
  for (const { message, sign } of messages) {
    if (message.id_phone === null) {
      continue;
    }
    const id = `${message.id_user}|${message.at}|${message.id_phone}|${message.kind}`;
    const same = alike.get(id);
    if (same) {
      same.nb += sign;
    } else {
      alike.set(id, { message, phone: message.id_phone, nb: sign });
    }
  }
  const deltas = new Map<string, { key: [number, string, number, CountKind]; nb: number }>();
  for (const { message, phone, nb } of alike.values()) {
    for (const bucket of [message.at.slice(0, 10), quarterHourOf(message.at)]) {
      const id = `${message.id_user}|${bucket}|${phone}|${message.kind}`;
      const delta = deltas.get(id);
      if (delta) {
        delta.nb += nb;
      } else {
        deltas.set(id, { key: [message.id_user, bucket, phone, message.kind], nb });
      }
    }
  }
  const changes = [...deltas.values()]
    .filter((delta) => delta.nb !== 0)
    .sort(
      (a, b) =>
        a.key[0] - b.key[0] ||
        a.key[1].localeCompare(b.key[1]) ||
        a.key[2] - b.key[2] ||
        a.key[3].localeCompare(b.key[3]),
    );
  const onTaken = mysql
    ? 'ON DUPLICATE KEY UPDATE nb = nb + VALUES(nb)'
    : 'ON CONFLICT (id_user, bucket, id_phone, kind) DO UPDATE SET nb = nb + excluded.nb';
  for (const chunk of chunks(changes, COUNTERS_PER_STATEMENT)) {
    yield* write(
      'INSERT INTO message_count (id_user, bucket, id_phone, kind, nb) VALUES ' +
        `${rowMarks(chunk.length, 5)} ${onTaken}`,
      chunk.flatMap((change) => [...change.key, change.nb]),
    );
  }
}

/** `countMessages` for messages all written, or all deleted. */
export function* countAll(
  mysql: boolean,
  messages: readonly CountedMessage[],
  sign: 1 | -1,
): Sql<void> {
  yield* countMessages(
    mysql,
    messages.map((message) => ({ message, sign })),
  );
}
