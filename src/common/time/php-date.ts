import { DateTime } from 'luxon';

/**
 * A date text read as PHP's strtotime reads it (`today`, `-24 hours`, `12/05/1990`…) at `now`,
 * in `now`'s zone; null when PHP would refuse it. The port of strtotime works in the process's
 * own zone (UTC in the service, whatever the machine's in unit tests): it is handed `now`'s wall
 * time as a local time, and its answer, a local wall time again, is read back in `now`'s zone.
 */
export function phpStrtotime(text: string, now: DateTime): DateTime | null {
  const localNow = new Date(now.year, now.month - 1, now.day, now.hour, now.minute, now.second);
  // Loaded at the first date text, not with this file: most processes read none.
  const strtotime = require('locutus/php/datetime/strtotime') as Strtotime;
  const seconds = strtotime(text, Math.floor(localNow.getTime() / 1000));
  if (seconds === false || !Number.isFinite(seconds)) {
    return null;
  }
  const local = new Date(seconds * 1000);
  const time = DateTime.fromObject(
    {
      year: local.getFullYear(),
      month: local.getMonth() + 1,
      day: local.getDate(),
      hour: local.getHours(),
      minute: local.getMinutes(),
      second: local.getSeconds(),
    },
    { zone: now.zone },
  );
  return time.isValid ? time : null;
}

type Strtotime = typeof import('locutus/php/datetime/strtotime');
