import { OutboxRow, PhoneRow } from './dispatch-rows';

/*
 * Where each row of a claim may go, read before the claim plans (claims.service.ts): the phones
 * it may use, and which of them are paced, so that their slots are locked with the rest.
 */

/** The phones a row may go through: the one it names when it exists, else its pool. */
export interface Route {
  pinned: PhoneRow | undefined;
  pool: PhoneRow[];
}

/** Each row's route among the users' `phones` and the phone groups' `members`. */
export function routes(
  rows: readonly OutboxRow[],
  phones: readonly PhoneRow[],
  members: ReadonlyMap<number, ReadonlySet<number>>,
): Route[] {
  return rows.map((row) => {
    const own = phones.filter((phone) => Number(phone.id_user) === Number(row.id_user));
    const pinned = row.id_phone
      ? own.find((phone) => phone.id === Number(row.id_phone))
      : undefined;
    const pool = row.id_phone_group
      ? own.filter((phone) => members.get(Number(row.id_phone_group))?.has(phone.id))
      : own;
    return { pinned, pool };
  });
}

/** The paced phones among those the routes may send through. */
export function pacedPhones(routed: readonly Route[]): Set<number> {
  return new Set(routed.flatMap(pacedOf));
}

/**
 * How many booked slots of each paced phone the high-priority rows may take
 * (docs/dispatch.md#priority): one per such row not yet booked, on every paced phone it may go
 * through.
 */
export function slotsToTake(
  rows: readonly OutboxRow[],
  routed: readonly Route[],
): Map<number, number> {
  const wanted = new Map<number, number>();
  rows.forEach((row, index) => {
    if (Number(row.priority) > 0 && row.pace_slot === null) {
      for (const phoneId of pacedOf(routed[index])) {
        wanted.set(phoneId, (wanted.get(phoneId) ?? 0) + 1);
      }
    }
  });
  return wanted;
}

function pacedOf({ pinned, pool }: Route): number[] {
  return (pinned ? [pinned] : pool).flatMap((phone) => (phone.rate ? [phone.id] : []));
}
