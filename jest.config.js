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

/**
 * With TEST_MYSQL_URL set, the browser suites run a second time in the same run with the server
 * on MariaDB (test/support/browser-mariadb.setup.ts), beside the other specs rather than after
 * them. BROWSER_DATABASE, when set, picks the one engine they run on instead
 * (`npm run test:browser:mariadb`).
 */
const browserOnMariadb =
  !timing && Boolean(process.env.TEST_MYSQL_URL) && !process.env.BROWSER_DATABASE;

const project = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...project,
      testMatch: timing ? TIMING.map((path) => `<rootDir>/${path}`) : ['**/*.spec.ts'],
      testPathIgnorePatterns: timing
        ? ['/node_modules/']
        : ['/node_modules/', ...TIMING.map((path) => path.replace(/\./g, '\\.'))],
    },
    ...(browserOnMariadb
      ? [
          {
            ...project,
            displayName: 'browser on MariaDB',
            testMatch: ['<rootDir>/test/browser/**/*.spec.ts'],
            setupFiles: ['<rootDir>/test/support/browser-mariadb.setup.ts'],
          },
        ]
      : []),
  ],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testTimeout: 30000,
  // Jest's default on two cores is one worker; the e2e specs spend much of their time waiting on
  // sockets, child processes and the databases, so more workers than cores overlap well (the
  // main suite on a 2-core machine: 441 s in one worker, 220 s in two when it was smaller; 525 s
  // in two and 456 s in three on 2026-11-28). The timing specs run alone anyway (`--runInBand`).
  maxWorkers: 3,
};
