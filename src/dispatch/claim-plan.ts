import { Adapter, AdapterData, OutgoingSms } from '../adapters/adapter';
import { OpenedData, unreadableClause } from '../adapters/adapter-data.cipher';
import { utcString, utcToZone } from '../common/time/datetime';
import {
  MAX_WAIT_DAYS,
  Opening,
  openingIn,
  openings,
  readStoredWindow,
} from '../common/time/send-window';
import { MAX_TEXT_CHARACTERS } from '../common/text/message-text';
import { measureSms } from '../common/text/gsm';
import { isSettingOn } from '../users/settings';
import type { Booking, BookedSlot } from './claims.repository';
import { OutboxRow, PhoneRow, withOutbox } from './dispatch-rows';
import { PACE_AHEAD_MS, PACE_LATE_MS, PACE_LEAD_MS } from './pacing';
import { choosePhone } from './phone-choice';
import { QuotaBudget, spendQuota } from './quota-budget';
import { Route } from './claim-routes';
import { expiredReason, expiryMs } from './validity';

/** A claimed row and what it is to be sent through. */
export interface Claimed {
  row: OutboxRow;
  phone: PhoneRow;
  adapter: Adapter;
  /** The phone's adapter data, decrypted. */
  data: AdapterData;
  /** What goes to the provider: the text, with the links of its medias when not an MMS. */
  text: string;
  medias: OutgoingSms['medias'];
  /** When it is sent (epoch ms), through a paced phone; null: at once. */
  slot: number | null;
}

/** A row that will not be sent, and why. */
export interface Refused {
  row: OutboxRow;
  phone: PhoneRow | null;
  reason: string;
}

/** A row whose send window is closed: it waits in the queue until it opens. */
export interface Deferred {
  id: number;
  /** When the window opens (epoch ms). */
  until: number;
}

/** A paced phone's sending slots while a claim hands them out. */
export interface Pace {
  /** When its next slot is free (epoch ms). */
  next: number;
  spacing: number;
}

/** What a claim knows when it plans, all read and locked beforehand. */
export interface ClaimInput {
  /** The queued rows, booked ones first. */
  rows: readonly OutboxRow[];
  /** Each row's route, by index (`routes`). */
  routes: readonly Route[];
  now: Date;
  /** Each user's settings. */
  settings: ReadonlyMap<number, Record<string, string>>;
  /** What each limited phone may still send. */
  remaining: ReadonlyMap<number, number>;
  /** The paced phones' next free slots, as locked. */
  paces: ReadonlyMap<number, Pace>;
  /**
   * Per paced phone, normal-priority rows booked on it beyond the claim's reach, soonest first,
   * locked (`slotsToTake`): the slots its high-priority rows take.
   */
  swappable: ReadonlyMap<number, readonly BookedSlot[]>;
  /** The quotas of the users that have one, as locked (renewed). */
  quotas: ReadonlyMap<number, QuotaBudget>;
  /** Where the rows' medias are stored, by id. */
  mediaPaths: ReadonlyMap<number, string>;
  timeZone: string;
  /** PUBLIC_URL and BASE_PATH: the links of medias sent as text. */
  publicUrl: string | null;
  basePath: string;
}

/** The lookups a plan makes of what the process holds: adapters, and phones' credentials. */
export interface ClaimTools {
  adapter(name: string): Adapter | undefined;
  open(phone: PhoneRow): OpenedData;
}

/** What a claim does: rows it sends, refuses, and books, and what it spends for them. */
export interface ClaimPlan {
  claimed: Claimed[];
  refused: Refused[];
  bookings: Booking[];
  deferred: Deferred[];
  /** Where the next free slot of each paced phone that gave slots now is, in `paces` order. */
  paces: Map<number, number>;
  /** Segments reserved per user, for those that reserved any, in `quotas` order. */
  reserved: Map<number, number>;
}

/** Why a phone that is not `available` does not send, by its status. */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  unavailable: 'The phone is unavailable: check it, then update its status.',
  no_credit: 'The phone has no credit left.',
  limit_reached: 'The phone has reached its sending limit.',
  disabled: 'The phone is disabled.',
};

const TOO_LONG_WITH_LINKS =
  `With the links of its medias, the text is longer than ${MAX_TEXT_CHARACTERS} characters: shorten it, ` +
  'or send through a phone that sends MMS.';

const NO_MEDIA_LINKS =
  'The message has medias and its phone cannot send MMS, so they would go as links, but ' +
  'PUBLIC_URL is not set: set it, or send through a phone that sends MMS.';

/**
 * Chooses each row's phone (docs/dispatch.md#phone-choice) and sorts the rows into those to send,
 * those whose send window is closed, deferred to its opening (docs/dispatch.md#send-windows), and
 * those refused before any send: an expired message, one whose window opens after it expires, no
 * phone, a phone that is not available, a spent limit, medias that cannot go, a sending slot
 * after the message expires, a spent or expired quota. A row for a paced phone takes its next sending slot (or keeps the one
 * it was booked): claimed when the slot comes soon, booked to wait in the queue otherwise
 * (docs/dispatch.md#pacing); a high-priority row to be booked takes the slot of a normal row
 * booked ahead of it (docs/dispatch.md#priority). A row to send reserves its segments of its
 * user's quota, last, so that a refused or booked row takes none. The input is left as it was:
 * what the plan spends is in what it returns.
 */
export function planClaims(input: ClaimInput, tools: ClaimTools): ClaimPlan {
  const { rows, routes: routed, now, settings, mediaPaths } = input;
  const remaining = new Map(input.remaining);
  const paces = new Map([...input.paces].map(([id, pace]) => [id, { ...pace, moved: false }]));
  const swappable = new Map([...input.swappable].map(([id, slots]) => [id, [...slots]]));
  const quotas = new Map([...input.quotas].map(([id, budget]) => [id, { ...budget, reserved: 0 }]));
  const stamp = utcString(now);
  const nowMs = now.getTime();
  const opened = new Map<number, OpenedData>();
  const claimed: Claimed[] = [];
  const refused: Refused[] = [];
  const bookings: Booking[] = [];
  const deferred: Deferred[] = [];
  const windows = new WindowOpenings(now);
  // Phones whose turn comes within the claim's reach are all as soon as each other.
  const readyIn = (phoneId: number) => {
    const wait = (paces.get(phoneId)?.next ?? nowMs) - nowMs;
    return wait <= PACE_AHEAD_MS ? 0 : wait;
  };

  for (const [index, row] of rows.entries()) {
    const userId = Number(row.id_user);
    const { pinned, pool } = routed[index];
    // An expired message takes no phone, limit, slot or quota (docs/dispatch.md#validity).
    const expires = expiryMs(row.expires_at);
    if (row.expires_at !== null && expires <= nowMs) {
      refused.push({
        row,
        phone: pinned ?? null,
        reason: expiredReason(row.expires_at, input.timeZone),
      });
      continue;
    }
    const opening = windows.openingOf(row, nowMs);
    if (opening !== nowMs) {
      if (opening === null || opening >= expires) {
        refused.push({ row, phone: pinned ?? null, reason: closedReason(row, opening, input) });
      } else {
        deferred.push({ id: row.id, until: opening });
      }
      continue;
    }
    const userSettings = settings.get(userId) ?? {};
    const limited = isSettingOn(userSettings, 'phone_limit');
    const bookedSlot = row.pace_slot === null ? null : Number(row.pace_slot);
    // A booking whose slot passed unclaimed (its workers were stopped) is not kept.
    const booking =
      bookedSlot !== null && bookedSlot >= nowMs - PACE_LATE_MS
        ? (pinned ? [pinned] : pool).find(
            (phone) => phone.id === Number(row.via_phone) && phone.status === 'available',
          )
        : undefined;
    // A recipient its phones refused goes through the others (docs/dispatch.md#failover).
    const candidates =
      row.refusals.length === 0
        ? pool
        : pool.filter(
            (candidate) => !row.refusals.some((refusal) => refusal.id_phone === candidate.id),
          );
    const phone =
      pinned ??
      booking ??
      choosePhone(
        candidates.map((candidate) => ({
          id: candidate.id,
          status: candidate.status,
          priority: candidate.priority,
          mms: tools.adapter(candidate.adapter)?.capabilities.mms ?? false,
          remaining: remaining.get(candidate.id) ?? Infinity,
          readyIn: readyIn(candidate.id),
          phone: candidate,
        })),
        {
          mms: Boolean(Number(row.mms)),
          phoneLimit: limited,
          phonePriority: isSettingOn(userSettings, 'phone_priority'),
        },
      )?.phone;
    const last = row.refusals.at(-1);
    if (!phone && last) {
      // The phones left stopped being available since: the last refusal is its outcome.
      refused.push({
        row: withOutbox(row, { refusals: row.refusals.slice(0, -1) }),
        phone: pool.find((candidate) => candidate.id === last.id_phone) ?? null,
        reason: last.reason,
      });
      continue;
    }
    if (!phone) {
      refused.push({ row, phone: null, reason: noPhoneReason(row) });
      continue;
    }
    const adapter = tools.adapter(phone.adapter);
    if (!adapter) {
      refused.push({ row, phone, reason: `The phone's adapter ${phone.adapter} is unknown.` });
      continue;
    }
    if (phone.status !== 'available') {
      refused.push({ row, phone, reason: UNAVAILABLE[phone.status] ?? UNAVAILABLE.unavailable });
      continue;
    }
    const left = remaining.get(phone.id) ?? Infinity;
    if (limited && left <= 0) {
      refused.push({ row, phone, reason: UNAVAILABLE.limit_reached });
      continue;
    }
    const data = opened.get(phone.id) ?? tools.open(phone);
    opened.set(phone.id, data);
    if (data.unreadable.length > 0) {
      refused.push({ row, phone, reason: unreadableReason(data) });
      continue;
    }
    const outgoing = outgoingOf(row, adapter, mediaPaths, input);
    if ('reason' in outgoing) {
      refused.push({ row, phone, reason: outgoing.reason });
      continue;
    }
    const pace = paces.get(phone.id);
    const fresh = pace !== undefined && booking !== phone;
    let slot: number | null = null;
    if (pace) {
      slot = fresh ? Math.max(pace.next, nowMs + PACE_LEAD_MS) : bookedSlot;
      if (fresh && slot !== null) {
        pace.next = slot + pace.spacing;
        pace.moved = true;
      }
    }
    if (slot !== null && slot >= expires) {
      // Known now never to go out in time: refused rather than booked or held in its lane.
      if (pace && fresh) {
        pace.next -= pace.spacing;
      }
      const at = utcToZone(utcString(new Date(slot)), input.timeZone) ?? '';
      refused.push({
        row,
        phone,
        reason: expiredReason(
          row.expires_at ?? '',
          input.timeZone,
          `the phone's sending slot at ${at}`,
        ),
      });
      continue;
    }
    const slotOpening = slot === null ? null : windows.openingOf(row, slot);
    if (slot !== null && slotOpening !== slot) {
      // Its window closes before the slot: it waits for the next opening, and the slot goes to
      // the next row.
      if (pace && fresh) {
        pace.next -= pace.spacing;
      }
      if (slotOpening === null || slotOpening >= expires) {
        refused.push({ row, phone, reason: closedReason(row, slotOpening, input) });
      } else {
        deferred.push({ id: row.id, until: slotOpening });
      }
      continue;
    }
    if (fresh && slot !== null && slot > nowMs + PACE_AHEAD_MS) {
      // A high-priority row takes the slot of the soonest normal row booked beyond the claim's
      // reach, which takes the phone's next free slot instead: one row moves, and those already
      // claimed keep theirs.
      const taken = Number(row.priority) > 0 ? swappable.get(phone.id)?.shift() : undefined;
      if (taken) {
        bookings.push(
          { id: row.id, phoneId: phone.id, slot: taken.slot },
          { id: taken.id, phoneId: phone.id, slot },
        );
      } else {
        bookings.push({ id: row.id, phoneId: phone.id, slot });
      }
      continue;
    }
    const budget = quotas.get(userId);
    let segments: number | null = null;
    if (budget) {
      segments = measureSms(outgoing.text).segments;
      const refusal = spendQuota(budget, segments, stamp, input.timeZone);
      if (refusal) {
        if (pace && fresh) {
          // The slot it took was the last given: the next row takes it.
          pace.next -= pace.spacing;
        }
        refused.push({ row, phone, reason: refusal });
        continue;
      }
      budget.reserved += segments;
    }
    remaining.set(phone.id, left - 1);
    claimed.push({
      row: withOutbox(row, { quota_segments: segments }),
      phone,
      adapter,
      data: data.data,
      text: outgoing.text,
      medias: outgoing.medias,
      slot,
    });
  }
  return {
    claimed,
    refused,
    bookings,
    deferred,
    paces: new Map(
      [...paces].flatMap(([id, pace]) => (pace.moved ? [[id, pace.next] as const] : [])),
    ),
    reserved: new Map(
      [...quotas].flatMap(([id, budget]) =>
        budget.reserved > 0 ? [[id, budget.reserved] as const] : [],
      ),
    ),
  };
}

/**
 * What the provider is handed: an MMS through a phone whose adapter sends them; otherwise, as
 * in RaspiSMS, the text followed by the links of its medias. Or why it cannot go.
 */
function outgoingOf(
  row: OutboxRow,
  adapter: Adapter,
  mediaPaths: ReadonlyMap<number, string>,
  { publicUrl, basePath }: Pick<ClaimInput, 'publicUrl' | 'basePath'>,
): Pick<Claimed, 'text' | 'medias'> | { reason: string } {
  const links = row.media_ids.flatMap((id) => {
    const path = mediaPaths.get(id);
    // Where the media is served (MediaController): only meaningful with PUBLIC_URL set.
    return path
      ? [{ path, mimetype: null, url: `${publicUrl ?? ''}${basePath}/media/${path}` }]
      : [];
  });
  const asMms = Boolean(Number(row.mms)) && adapter.capabilities.mms && links.length > 0;
  if (links.length > 0 && !asMms && !publicUrl) {
    return { reason: NO_MEDIA_LINKS };
  }
  const text =
    links.length > 0 && !asMms
      ? `${row.text}\n${links.map((link) => link.url).join(' - ')}`
      : row.text;
  if ([...text].length > MAX_TEXT_CHARACTERS) {
    return { reason: TOO_LONG_WITH_LINKS };
  }
  return { text, medias: asMms ? links : [] };
}

/**
 * The openings of the send windows a claim meets, computed once per window from the claim's
 * `now`: a campaign's rows share one.
 */
class WindowOpenings {
  private readonly known = new Map<string, Opening[] | null>();

  constructor(private readonly now: Date) {}

  /**
   * When the row's window is open from `at` (epoch ms) on: `at` itself when it is open; null
   * when it does not open in the days a message may wait.
   */
  openingOf(row: OutboxRow, at: number): number | null {
    if (row.effective_window === null) {
      return at;
    }
    let list = this.known.get(row.effective_window);
    if (list === undefined) {
      const zoned = readStoredWindow(row.effective_window);
      list = zoned ? openings(zoned.window, this.now, zoned.zone) : null;
      this.known.set(row.effective_window, list);
    }
    // A window that does not read (a row edited by hand) holds nothing back.
    return list === null ? at : (openingIn(list, new Date(at))?.getTime() ?? null);
  }
}

/** Why a row whose window is closed is not sent: it expires first, or the window never opens. */
function closedReason(
  row: OutboxRow,
  opening: number | null,
  { timeZone }: Pick<ClaimInput, 'timeZone'>,
): string {
  if (opening === null || row.expires_at === null) {
    return `Its send window does not open in the next ${MAX_WAIT_DAYS} days.`;
  }
  const at = utcToZone(utcString(new Date(opening)), timeZone) ?? '';
  return expiredReason(row.expires_at, timeZone, `its send window opens at ${at}`);
}

function noPhoneReason(row: OutboxRow): string {
  return row.id_phone_group
    ? 'No phone to send it: the phone group has no phone.'
    : 'No phone to send it: the user has no phone.';
}

/** Why a phone whose stored credentials do not decrypt does not send. */
function unreadableReason(opened: OpenedData): string {
  const clause = unreadableClause(opened.unreadable);
  return (
    `${clause.charAt(0).toUpperCase()}${clause.slice(1)}: send its adapter_data again with ` +
    'post_update_phone.'
  );
}
