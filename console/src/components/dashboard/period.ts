import { useSearchParams } from 'react-router';
import type { Period } from '../../api/stats';

/** How many days the dashboard shows when the address names no period. */
export const DEFAULT_DAYS = 30;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `date`'s day in the browser's time zone, as `YYYY-MM-DD`. */
export function isoDay(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

/** The `count` days up to today, today included. */
export function lastDays(count: number, today = new Date()): Period {
  const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (count - 1));
  return { start: isoDay(start), end: isoDay(today) };
}

function isDay(value: string | null): value is string {
  return value !== null && DAY.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * The period the address names (`?start=YYYY-MM-DD&end=YYYY-MM-DD`), so that a dashboard can be
 * bookmarked and shared; without one, or with one that is not a period, the last 30 days.
 */
export function usePeriod(): [Period, (period: Period) => void] {
  const [params, setParams] = useSearchParams();
  const start = params.get('start');
  const end = params.get('end');
  const period =
    isDay(start) && isDay(end) && start <= end ? { start, end } : lastDays(DEFAULT_DAYS);
  const choose = (next: Period) =>
    setParams((current) => {
      const changed = new URLSearchParams(current);
      changed.set('start', next.start);
      changed.set('end', next.end);
      return changed;
    });
  return [period, choose];
}

const SHORT_DAY = new Intl.DateTimeFormat(undefined, {
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});

/** A day as a chart's axis shows it, short: `27 Nov`. */
export function shortDay(day: string): string {
  return SHORT_DAY.format(new Date(`${day}T00:00:00Z`));
}

const COUNT = new Intl.NumberFormat();

/** A count as the dashboard writes it, with the reader's grouping of thousands. */
export function count(value: number): string {
  return COUNT.format(value);
}
