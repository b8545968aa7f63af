import { IANAZone } from 'luxon';

/**
 * Send windows (docs/dispatch.md#send-windows): when a message may go out, as ranges of wall
 * time on days of the week in a time zone, such as `mon-fri 08:00-20:00, sat 10:00-18:00`.
 */

/** One range of a window: on its days, from `start` to `end` (minutes of the day). */
export interface WindowRange {
  /** Monday first, as ISO weekdays less one. */
  days: readonly boolean[];
  start: number;
  /** Up to 1440 (24:00); at or before `start`, the range ends the next day. */
  end: number;
}

export interface SendWindow {
  ranges: readonly WindowRange[];
}

/** What a window is, as error messages say it. */
export const WINDOW_SYNTAX =
  'one or more HH:MM-HH:MM ranges separated by commas, each optionally preceded by days ' +
  '(mon-fri 08:00-20:00, sat 10:00-18:00); a range may cross midnight (22:00-06:00)';

export const MAX_WINDOW_CHARACTERS = 255;

/** How far ahead a window must open for a message to wait for it. */
export const MAX_WAIT_DAYS = 8;

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const DAYS = String.raw`[a-z]{3}(?:\s*-\s*[a-z]{3})?`;
const RANGE = new RegExp(String.raw`^(?:(${DAYS})\s+)?(\d\d):(\d\d)\s*-\s*(\d\d):(\d\d)$`, 'i');
const DAYS_ALONE = new RegExp(`^${DAYS}$`, 'i');

/**
 * A window's ranges; or the problem with the text, to follow the allowed syntax in a message. A
 * range without days takes those of the range before it (`mon-fri 08:00-12:00, 14:00-18:00`),
 * the first one every day; days separated by commas share the range that follows them
 * (`mon,wed 09:00-12:00`); a day range may wrap (`fri-mon`).
 */
export function parseSendWindow(text: string): { window: SendWindow } | { problem: string } {
  if (text.length > MAX_WINDOW_CHARACTERS) {
    return { problem: `it is longer than ${MAX_WINDOW_CHARACTERS} characters` };
  }
  const ranges: WindowRange[] = [];
  let previous: boolean[] = DAY_NAMES.map(() => true);
  let pending: boolean[] | null = null;
  for (const part of text.split(',').map((piece) => piece.trim())) {
    if (DAYS_ALONE.test(part)) {
      const days = daysOf(part);
      if (typeof days === 'string') {
        return { problem: days };
      }
      pending = union(pending, days);
      continue;
    }
    const match = RANGE.exec(part);
    if (!match) {
      return {
        problem: part === '' ? 'a range is missing between commas' : `"${part}" is not a range`,
      };
    }
    let days: boolean[] = previous;
    if (match[1] !== undefined) {
      const named = daysOf(match[1]);
      if (typeof named === 'string') {
        return { problem: named };
      }
      days = named;
    }
    if (pending) {
      days = match[1] === undefined ? pending : union(pending, days);
      pending = null;
    }
    const start = minutesOf(match[2], match[3], false);
    const end = minutesOf(match[4], match[5], true);
    if (start === null || end === null) {
      return { problem: `"${part}" is not a time of day from 00:00 to 23:59 (24:00 as an end)` };
    }
    if (start === end) {
      return { problem: `"${part}" starts and ends at once; for the whole day write 00:00-24:00` };
    }
    ranges.push({ days, start, end });
    previous = days;
  }
  if (pending) {
    return { problem: 'days at the end are not followed by a range' };
  }
  return { window: { ranges } };
}

/**
 * An IANA time zone name as this runtime spells it, in its case and by the name its ICU keeps
 * for a renamed zone (`asia/kolkata` may be `Asia/Calcutta`), so that it reads as one of
 * `Intl.supportedValuesOf('timeZone')`; null when it names no zone.
 */
export function canonicalTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch (error) {
    if (error instanceof RangeError) {
      return null;
    }
    throw error;
  }
}

/** Whether `name` is an IANA time zone (Europe/Paris). */
export function isTimeZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/**
 * The first moment from `from` when the window is open in `zone` (`from` itself when it is
 * open); null when it does not open within MAX_WAIT_DAYS.
 */
export function nextOpening(window: SendWindow, from: Date, zone: string): Date | null {
  return openingIn(openings(window, from, zone), from);
}

/** When the window is open (epoch ms, end excluded), from the day before `from` on. */
export type Opening = readonly [number, number];

/**
 * The window's openings in `zone` around `from` and over the MAX_WAIT_DAYS after it. Wall times
 * are resolved as the clocks say them on the day: one that the clocks skip (spring forward) is
 * when they jump past it, one they go through twice (fall back) its first time, so that no range
 * opens twice or is skipped on the days the clocks change.
 */
export function openings(window: SendWindow, from: Date, zone: string): Opening[] {
  const iana = IANAZone.create(zone);
  const local = from.getTime() + iana.offset(from.getTime()) * MINUTE_MS;
  const firstDay = Math.floor(local / DAY_MS) - 1;
  const result: Opening[] = [];
  for (let day = firstDay; day <= firstDay + MAX_WAIT_DAYS + 1; day += 1) {
    // 1970-01-01 was a Thursday.
    const weekday = (day + 3) % 7;
    for (const range of window.ranges) {
      if (range.days[weekday]) {
        const midnight = day * DAY_MS;
        const endDay = range.end <= range.start ? midnight + DAY_MS : midnight;
        result.push([
          instantOf(midnight + range.start * MINUTE_MS, iana),
          instantOf(endDay + range.end * MINUTE_MS, iana),
        ]);
      }
    }
  }
  return result;
}

/** The first moment from `from` within `openings`; null when none is within MAX_WAIT_DAYS. */
export function openingIn(list: readonly Opening[], from: Date): Date | null {
  const at = from.getTime();
  let first = Infinity;
  for (const [start, end] of list) {
    if (end > at) {
      first = Math.min(first, Math.max(start, at));
    }
  }
  return first <= at + MAX_WAIT_DAYS * DAY_MS ? new Date(first) : null;
}

/**
 * The instant (epoch ms) of a wall time of `zone`, given as epoch ms as if it were UTC: its first
 * occurrence, or when the clocks jump past it.
 */
function instantOf(wall: number, zone: IANAZone): number {
  // Clocks change at most once within a day either side.
  const before = zone.offset(wall - DAY_MS);
  const after = zone.offset(wall + DAY_MS);
  const fitting = [before, after]
    .map((offset) => wall - offset * MINUTE_MS)
    .filter((instant) => instant + zone.offset(instant) * MINUTE_MS === wall);
  if (fitting.length > 0) {
    return Math.min(...fitting);
  }
  // Skipped: the first minute the zone is at its later offset.
  let low = (wall - after * MINUTE_MS) / MINUTE_MS;
  let high = (wall - before * MINUTE_MS) / MINUTE_MS;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (zone.offset(middle * MINUTE_MS) === after) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return high * MINUTE_MS;
}

function daysOf(text: string): boolean[] | string {
  const [first, last = first] = text
    .toLowerCase()
    .split('-')
    .map((name) => name.trim());
  const from = DAY_NAMES.indexOf(first);
  const to = DAY_NAMES.indexOf(last);
  const unknown = from < 0 ? first : to < 0 ? last : null;
  if (unknown !== null) {
    return `"${unknown}" is not a day: write mon, tue, wed, thu, fri, sat or sun`;
  }
  const days = DAY_NAMES.map(() => false);
  for (let day = from; ; day = (day + 1) % 7) {
    days[day] = true;
    if (day === to) {
      return days;
    }
  }
}

function union(left: readonly boolean[] | null, right: readonly boolean[]): boolean[] {
  return right.map((on, day) => on || (left?.[day] ?? false));
}

function minutesOf(hours: string, minutes: string, end: boolean): number | null {
  const value = Number(hours) * 60 + Number(minutes);
  if (Number(minutes) > 59 || value > (end ? 1440 : 1439)) {
    return null;
  }
  return value;
}

/** A window that applies to a message, with its zone, as stored. */
export interface ZonedWindow {
  zone: string;
  window: SendWindow;
}

/** How a message's window is stored: its zone, a space, the window (`Europe/Paris 08:00-20:00`). */
export function storedWindow(zone: string, text: string): string {
  return `${zone} ${text}`;
}

/** A stored window read back; null when it does not read, which only a hand-edited row can do. */
export function readStoredWindow(stored: string): ZonedWindow | null {
  const space = stored.indexOf(' ');
  const zone = stored.slice(0, space);
  const parsed = space > 0 && isTimeZone(zone) ? parseSendWindow(stored.slice(space + 1)) : null;
  return parsed && 'window' in parsed ? { zone, window: parsed.window } : null;
}
