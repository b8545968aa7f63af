import { ApiError } from '../common/errors/api-error';
import { utcDate, utcString } from '../common/time/datetime';
import {
  MAX_WAIT_DAYS,
  isTimeZone,
  nextOpening,
  parseSendWindow,
  storedWindow,
} from '../common/time/send-window';

/** When a message may go out: the window that applies, as stored, and its first moment. */
export interface MessageTiming {
  /** Null: any time. */
  effectiveWindow: string | null;
  /** UTC: `at`, or the window's next opening from it. */
  sendAfter: string;
}

/**
 * The window a message goes out in, fixed when it is scheduled or updated
 * (docs/dispatch.md#send-windows): the one it was given (`none`: any time), else its user's
 * `send_window`, read in their `timezone` (the service's when empty); and when it may go out:
 * the window's first opening from `at`, or from now when `at` has passed, since a window that
 * opened in the past says nothing of when it opens next.
 */
export function messageTiming(
  window: string | null,
  at: string,
  settings: Readonly<Record<string, string>>,
  serviceZone: string,
): MessageTiming {
  const text = window === null ? (settings.send_window ?? '') : window === 'none' ? '' : window;
  if (text === '') {
    return { effectiveWindow: null, sendAfter: at };
  }
  const named = window === null ? 'your send_window setting' : 'window';
  const parsed = parseSendWindow(text);
  if ('problem' in parsed) {
    // Only a setting stored before its check, or by hand, gets here.
    throw ApiError.invalid(`${named} is not a window (${parsed.problem}): set it again.`);
  }
  const zone = settings.timezone || serviceZone;
  if (!isTimeZone(zone)) {
    throw ApiError.invalid(`your timezone setting (${zone}) is not a time zone: set it again.`);
  }
  const due = utcDate(at);
  const opening = nextOpening(parsed.window, new Date(Math.max(due.getTime(), Date.now())), zone);
  if (opening === null) {
    throw ApiError.invalid(
      `${named} does not open in the ${MAX_WAIT_DAYS} days after the message's at.`,
    );
  }
  return { effectiveWindow: storedWindow(zone, text), sendAfter: utcString(opening) };
}
