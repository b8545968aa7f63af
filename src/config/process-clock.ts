/**
 * `TZ` as the process was started with: the service's time zone, which the configuration
 * reads. Captured when this module is first loaded, before an entry point pins the clock.
 */
const STARTED_WITH_TZ = process.env.TZ;

/**
 * Pins Node's own clock to UTC, from the entry points (server, worker, CLI) before anything
 * runs: datetimes are stored in UTC and converted to the service's zone (`TZ`) only at the API
 * edge, so nothing may depend on the process zone.
 */
export function pinProcessClockToUtc(): void {
  process.env.TZ = 'UTC';
}

/** The process environment with `TZ` as it was before the clock was pinned (absent if it was). */
export function processEnvironment(): Record<string, string | undefined> {
  const environment: Record<string, string | undefined> = { ...process.env };
  delete environment.TZ;
  return STARTED_WITH_TZ === undefined ? environment : { ...environment, TZ: STARTED_WITH_TZ };
}
