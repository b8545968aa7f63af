/**
 * The paths operators' tools poll — health probes and the metrics scrape — outside the API: no
 * API key, no envelope, no `BASE_PATH` (a probe addresses the host, not the API's mount), and no
 * request log line (a probe every few seconds would bury the requests worth reading).
 */
export const HEALTH_PATH = 'health';
export const READY_PATH = `${HEALTH_PATH}/ready`;
export const METRICS_PATH = 'metrics';
export const OPERATOR_PATHS: readonly string[] = [HEALTH_PATH, READY_PATH, METRICS_PATH];

/** Whether a request's URL (path and query) is one of the operator paths. */
export function isOperatorPath(url: string): boolean {
  const path = url.split('?', 1)[0].replace(/\/+$/, '');
  return OPERATOR_PATHS.some((operatorPath) => path === `/${operatorPath}`);
}
