/**
 * Specs whose assertions measure latency, or race a kill against a load: `npm test` runs them
 * alone, after the others (SPECS=timing), so that another spec's load on the cores and on
 * MariaDB cannot decide their outcome. `SPECS=timing npx jest` runs them by themselves.
 */
const TIMING = [
  'test/e2e/dispatch-text.e2e.spec.ts',
  'test/e2e/dispatch-fairness.e2e.spec.ts',
  'test/e2e/durability.e2e.spec.ts',
  'test/e2e/hostile-clients.e2e.spec.ts',
  // Counts the sends a fake provider receives in each second: another spec's load on the cores
  // delays some arrivals and bunches the next ones into the same second.
  'test/integration/dispatch-pacing.spec.ts',
  // A paced send gives its slot up when it starts more than PACE_LATE_MS (12 ms) late, and its
  // next slot falls after its message's validity: another spec's load made the one case that
  // expects it sent fail once on CI.
  'test/e2e/dispatch-validity.e2e.spec.ts',
];
const timing = process.env.SPECS === 'timing';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: timing ? TIMING.map((path) => `<rootDir>/${path}`) : ['**/*.spec.ts'],
  testPathIgnorePatterns: timing
    ? ['/node_modules/']
    : ['/node_modules/', ...TIMING.map((path) => path.replace(/\./g, '\\.'))],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // Jest's default on two cores is one worker; the e2e specs spend much of their time waiting on
  // sockets and the databases, so two overlap well (the main suite: 441 s in one worker, 220 s
  // in two). The timing specs run alone anyway (`--runInBand`).
  maxWorkers: 2,
};
