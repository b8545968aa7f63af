import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';
import { FAMILIES } from './families';
import { Providers, startProviders } from './support/providers';
import { Family, FuzzContext, runFamily } from './support/runner';
import { FuzzServer } from './support/server';
import { readSettings } from './support/settings';
import { createUsers, KEYS, seedWorld } from './support/world';

/*
 * `npm run fuzz`: generated hostile requests against the compiled server, on SQLite and, when
 * TEST_MYSQL_URL is set, on MariaDB. Each family is one test; a failing one prints its shrunk
 * case and how to replay it, and the next family runs on a live server again.
 */

const settings = readSettings();

const unknown = [...(settings.only ?? [])].filter(
  (name) => !FAMILIES.some((family) => family.name === name),
);
if (unknown.length) {
  throw new Error(
    `FUZZ_ONLY names no family: ${unknown.join(', ')}. Families: ${FAMILIES.map(({ name }) => name).join(', ')}.`,
  );
}
const selected: Family[] = FAMILIES.filter(
  (family) => !settings.only || settings.only.has(family.name),
);
const totalWeight = selected.reduce((sum, family) => sum + family.weight, 0);
const runsOf = (family: Family) =>
  Math.max(1, Math.round((settings.runs * family.weight) / totalWeight));
const timeoutOf = (family: Family) => runsOf(family) * 5_000 + settings.shrinkMs + 600_000;

/** This run's logs and failures: a folder of its own, as several runs may share the machine. */
const runFolder = mkdtempSync(join(tmpdir(), 'smsgw-fuzz-'));

process.stdout.write(
  `\nFuzz: seed ${settings.seed} (FUZZ_SEED), ${settings.runs} generated cases per database (FUZZ_RUNS) ` +
    `over ${selected.length} families. Failures print their replay command; artifacts go to ` +
    `${runFolder}.\n`,
);

describe.each(DATABASE_KINDS)('fuzz [%s]', (kind) => {
  const artifacts = join(runFolder, kind);
  let database: TestDatabase | undefined;
  let providers: Providers | undefined;
  let server: FuzzServer | undefined;
  let context: FuzzContext;

  beforeAll(async () => {
    mkdirSync(artifacts);
    database = await createTestDatabase(kind);
    providers = await startProviders();
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'debug',
      WORKER: 'inline',
      TZ: 'UTC',
      TWILIO_API_URL: providers.fakeUrl,
      OVH_API_URL: providers.ovhUrl,
      PROVIDER_TIMEOUT_MS: '3000',
      // Due messages are sent at once, so that what the worker does belongs to the case.
      DISPATCH_POLL_MS: '20',
    };
    const users = await createUsers(env, database.dataDir);
    server = new FuzzServer({
      env,
      dataDir: database.dataDir,
      logFile: join(artifacts, 'server.log'),
      stderrFile: join(artifacts, 'server.stderr.log'),
      controlPath: `/api/list/phone/?api_key=${KEYS.main}`,
    });
    await server.start();
    const started = server;
    const world = await seedWorld({
      port: () => started.port,
      env,
      dataDir: database.dataDir,
      users,
      providers,
    });
    await started.sync(settings.requestTimeoutMs);
    context = {
      server: started,
      world,
      settings,
      database: kind,
      dataDir: database.dataDir,
      artifacts,
      healthy: true,
    };
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    await providers?.close();
    await database?.drop();
    process.stdout.write(
      `[${kind}] server logs: ${artifacts}/server.log, ${artifacts}/server.stderr.log\n`,
    );
  }, 60_000);

  for (const family of selected) {
    it(
      family.name,
      async () => {
        const started = Date.now();
        const restarts = context.server.restarts;
        const result = await runFamily(context, family, runsOf(family));
        process.stdout.write(
          `[${kind}] ${family.name}: ${result.cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s` +
            `${context.server.restarts > restarts ? `, ${context.server.restarts - restarts} server restart(s)` : ''}` +
            `${result.failure ? ', FAILED' : ''}\n`,
        );
        if (result.failure) {
          throw new Error(result.failure);
        }
      },
      timeoutOf(family),
    );
  }

  it('leaves no crash line in the whole server log', () => {
    const lines = [
      ...readFileSync(join(artifacts, 'server.log'), 'utf8').split('\n'),
      ...readFileSync(join(artifacts, 'server.stderr.log'), 'utf8').split('\n'),
    ].filter((line) =>
      /uncaughtException|unhandledRejection|Unexpected failure|^\w*Error\b/.test(line),
    );
    expect(lines.map((line) => line.slice(0, 300))).toEqual([]);
  });
});
