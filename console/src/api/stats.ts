import { answerOf, api, type paths } from './client';

/** A period of whole days of the service time zone, both bounds included: `YYYY-MM-DD`. */
export interface Period {
  start: string;
  end: string;
}

/** Sent messages per day by status and received messages per day, and the same per phone. */
export type DailyStats = NonNullable<
  paths['/api/stats/daily']['get']['responses'][200]['content']['application/json']['response']
>;

/** The scheduled messages waiting now: due, to come, and being sent. */
export type QueueStats = NonNullable<
  paths['/api/stats/queue']['get']['responses'][200]['content']['application/json']['response']
>;

/** The reliability alerts raised for the caller's phones in a period. */
export type ReliabilityAlerts = NonNullable<
  paths['/api/stats/reliability']['get']['responses'][200]['content']['application/json']['response']
>;

export type ReliabilityAlert = ReliabilityAlerts[number];

/** TanStack Query's keys of the statistics, all under `stats`. */
export const STATS_KEYS = {
  daily: (period: Period) => ['stats', 'daily', period.start, period.end] as const,
  queue: ['stats', 'queue'] as const,
  reliability: (period: Period) => ['stats', 'reliability', period.start, period.end] as const,
};

export function getDailyStats(period: Period): Promise<DailyStats> {
  return answerOf(api.GET('/api/stats/daily', { params: { query: period } }));
}

export function getQueueStats(): Promise<QueueStats> {
  return answerOf(api.GET('/api/stats/queue'));
}

export function getReliabilityAlerts(period: Period): Promise<ReliabilityAlerts> {
  return answerOf(api.GET('/api/stats/reliability', { params: { query: period } }));
}
