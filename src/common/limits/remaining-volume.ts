import { startpointToUtc } from './startpoint';

/** A phone's sending limit: at most `volume` messages since `startpoint`, a PHP relative date. */
export interface SendingLimit {
  volume: number;
  startpoint: string;
}

/** A limit at a given moment: its volume, and the UTC datetime its count starts at. */
export interface CountingWindow {
  volume: number;
  since: string;
}

/*
 * The limit rule the status check (post_update_phone_status) and the dispatch's claims both
 * apply, so that a phone the check calls `limit_reached` is one the dispatch refuses, and back.
 * Each side counts what was spent its own way (the dispatch adds its sends in flight).
 */

/**
 * The windows of `limits` at `now` in the service time zone `zone`. A limit whose startpoint
 * PHP would not parse limits nothing, as in RaspiSMS.
 */
export function countingWindows(
  limits: readonly SendingLimit[],
  now: Date,
  zone: string,
): CountingWindow[] {
  return limits.flatMap((limit) => {
    const since = startpointToUtc(limit.startpoint, now, zone);
    return since === null ? [] : [{ volume: Number(limit.volume), since }];
  });
}

/**
 * What may still be sent under `windows`, given what was spent since each one's start: the
 * smallest remainder, Infinity without any window.
 */
export function remainingVolume(
  windows: readonly CountingWindow[],
  spentSince: (since: string) => number,
): number {
  return Math.min(...windows.map((window) => window.volume - spentSince(window.since)));
}
