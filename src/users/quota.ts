import { DateTime, Duration } from 'luxon';
import { API_DATETIME_FORMAT, utcToZone } from '../common/time/datetime';

/**
 * The rules of a sending quota (docs/dispatch.md#quotas), shared by the dispatch that spends it,
 * the account that shows it and the CLI that sets it. Datetimes are stored UTC strings
 * (`YYYY-MM-DD HH:MM:SS`), which compare as text.
 */

/** A quota's stored state, numbers as numbers. */
export interface QuotaState {
  id_user: number;
  credit: number;
  additional: number;
  consumed: number;
  reserved: number;
  start_date: string;
  expiration_date: string;
  renew_interval: string;
  auto_renew: boolean;
  report_unused: boolean;
  report_unused_additional: boolean;
  alerted_close: boolean;
  alerted_reached: boolean;
}

/** A quota as a row of either engine reads it (integers may come as strings, flags as 0/1). */
export type QuotaRow = Record<keyof QuotaState, unknown>;

export function quotaState(row: QuotaRow): QuotaState {
  return {
    id_user: Number(row.id_user),
    credit: Number(row.credit),
    additional: Number(row.additional),
    consumed: Number(row.consumed),
    reserved: Number(row.reserved),
    start_date: String(row.start_date).slice(0, 19),
    expiration_date: String(row.expiration_date).slice(0, 19),
    renew_interval: String(row.renew_interval),
    auto_renew: Number(row.auto_renew) !== 0,
    report_unused: Number(row.report_unused) !== 0,
    report_unused_additional: Number(row.report_unused_additional) !== 0,
    alerted_close: Number(row.alerted_close) !== 0,
    alerted_reached: Number(row.alerted_reached) !== 0,
  };
}

/**
 * The shortest period: an idle quota is renewed period by period when it is next read, so a
 * period much shorter would make that catch-up long.
 */
const SHORTEST_PERIOD_MS = 3_600_000;

/** The largest count the integer columns hold. */
export const MAX_QUOTA_COUNT = 2_147_483_647;

/** An ISO 8601 duration fit to be a period, or why it is not. */
export function checkRenewInterval(text: string): { interval: string } | { reason: string } {
  const duration = Duration.fromISO(text);
  if (!duration.isValid) {
    return { reason: `"${text}" is not an ISO 8601 duration, such as P1M, P1W or P1D.` };
  }
  // Months and years have no fixed length: measured from a fixed date, only to refuse the short.
  const from = DateTime.fromISO('2001-01-01T00:00:00Z');
  if (from.plus(duration).toMillis() - from.toMillis() < SHORTEST_PERIOD_MS) {
    return { reason: `the renew interval ${text} is shorter than one hour.` };
  }
  return { interval: text };
}

/**
 * `utc` plus the period, counted in the service time zone: P1M from 31 January ends on the last
 * day of February, P1D across a change of daylight saving time is a calendar day.
 */
export function addInterval(utc: string, interval: string, zone: string): string {
  return DateTime.fromFormat(utc, API_DATETIME_FORMAT, { zone: 'utc' })
    .setZone(zone)
    .plus(Duration.fromISO(interval))
    .toUTC()
    .toFormat(API_DATETIME_FORMAT);
}

/** Whether the quota's period is over at `now` (UTC). */
export function isExpired(quota: QuotaState, now: string): boolean {
  return quota.expiration_date <= now;
}

/**
 * The quota at `now`, renewed as RaspiSMS renews it, once per period elapsed, when `auto_renew`
 * is on: the next period starts where the last one ended; what the last one left of the credit
 * (`report_unused`) and of the additional credit (`report_unused_additional`; the credit is
 * spent first) becomes the new additional credit; nothing is consumed yet and both alerts are
 * due again. Sends in flight stay reserved. Null when nothing changes.
 */
export function renewedAt(quota: QuotaState, now: string, zone: string): QuotaState | null {
  if (!quota.auto_renew || !isExpired(quota, now)) {
    return null;
  }
  let renewed = quota;
  while (isExpired(renewed, now)) {
    const unused = renewed.credit - renewed.consumed;
    const unusedAdditional = unused > 0 ? renewed.additional : renewed.additional + unused;
    const additional =
      (renewed.report_unused && unused > 0 ? unused : 0) +
      (renewed.report_unused_additional && unusedAdditional > 0 ? unusedAdditional : 0);
    renewed = {
      ...renewed,
      additional: Math.min(additional, MAX_QUOTA_COUNT),
      consumed: 0,
      start_date: renewed.expiration_date,
      expiration_date: addInterval(renewed.expiration_date, renewed.renew_interval, zone),
      alerted_close: false,
      alerted_reached: false,
    };
  }
  return renewed;
}

/** What can still be claimed: sends in flight hold their share until they are recorded. */
export function remainingOf(quota: QuotaState): number {
  return Math.max(0, quota.credit + quota.additional - quota.consumed - quota.reserved);
}

export type QuotaLevel = 'close' | 'reached';

/**
 * The alerts the period reaches and has not had (RaspiSMS's `alert_quota_limit_*` settings):
 * `close` once the share consumed reaches `alert_quota_limit_close` (0: never), `reached` once
 * nothing is left, while `alert_quota_limit_reached` is on. Counted on what providers took, not
 * on sends in flight, which may still fail and give their share back.
 */
export function dueAlerts(quota: QuotaState, closeAt: number, reachedOn: boolean): QuotaLevel[] {
  const total = quota.credit + quota.additional;
  const levels: QuotaLevel[] = [];
  if (!quota.alerted_close && closeAt > 0 && total > 0 && quota.consumed / total >= closeAt) {
    levels.push('close');
  }
  if (!quota.alerted_reached && reachedOn && quota.consumed >= total) {
    levels.push('reached');
  }
  return levels;
}

/** The `alert_quota_limit_close` setting as a share; anything unreadable turns the alert off. */
export function closeThreshold(value: string | undefined): number {
  const share = Number(value ?? '');
  return Number.isFinite(share) && share > 0 ? share : 0;
}

/** A quota as get_me shows it, and as the `quota` events tell it. */
export interface QuotaView {
  credit: number;
  additional: number;
  /** Segments taken in the period, sends in flight included. */
  consumed: number;
  remaining: number;
  start_date: string;
  expiration_date: string;
  auto_renew: boolean;
}

/**
 * The quota as it stands at `now`: renewed if its renewal is due, and with nothing remaining
 * once it has expired without renewal. Dates in the service time zone.
 */
export function quotaView(stored: QuotaState, now: string, zone: string): QuotaView {
  const quota = renewedAt(stored, now, zone) ?? stored;
  return {
    credit: quota.credit,
    additional: quota.additional,
    consumed: quota.consumed + quota.reserved,
    remaining: isExpired(quota, now) ? 0 : remainingOf(quota),
    start_date: utcToZone(quota.start_date, zone) ?? quota.start_date,
    expiration_date: utcToZone(quota.expiration_date, zone) ?? quota.expiration_date,
    auto_renew: quota.auto_renew,
  };
}
