/*
 * ts-node --transpile-only bench/profile.ts — where the time of get_send_sms goes.
 *
 *   BENCH_DATABASE_URL, BENCH_SECONDS as for bench:api; PROFILE_TOP=40 (rows of each table);
 *   PROFILE_OUT=file.cpuprofile keeps the raw profile (open it in Chrome's DevTools).
 *
 * Seeds a small database, starts the real app, and records a CPU profile of this process (the
 * server's only thread: autocannon runs in a worker) during an autocannon run against
 * get_send_sms. Prints self time by package (or source file of the project) and by function.
 */
import autocannon from 'autocannon';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { AddressInfo } from 'node:net';
import { createApp } from '../src/app.factory';
import { AppConfig } from '../src/config/configuration';
import { secretCipher } from '../src/common/secrets/secrets-key';
import { validateEnvironment } from '../src/config/env.validation';
import { migrate, openDataSource } from '../src/database/data-source';
import { createBenchDatabase } from './database';
import { seed } from './seed';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOP = Number(process.env.PROFILE_TOP ?? 40);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package a script belongs to, the project file, or the V8 / Node.js bucket. */
function ownerOf({ url, functionName }: ProfileNode['callFrame']): string {
  // The innermost package: a dependency may bring its own copy of another (nested node_modules).
  const inPackage = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (inPackage) {
    return inPackage[1];
  }
  const inProject = /\/(src|bench)\/(.+)$/.exec(url);
  if (inProject) {
    return `${inProject[1]}/${inProject[2]}`;
  }
  if (url.startsWith('node:')) {
    return url;
  }
  return url === '' ? `(native) ${functionName || '(anonymous)'}` : url;
}

function printTable(title: string, totals: Map<string, number>, all: number): void {
  process.stdout.write(`\n## ${title}\n\n| self ms | % | where |\n|---|---|---|\n`);
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .forEach(([name, micros]) =>
      process.stdout.write(
        `| ${(micros / 1000).toFixed(0)} | ${((100 * micros) / all).toFixed(1)} | ${name} |\n`,
      ),
    );
}

async function main(): Promise<void> {
  const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL ?? 'sqlite');
  try {
    const config = new AppConfig(
      validateEnvironment({
        DATABASE_URL: database.url,
        DATA_DIR: database.dataDir,
        LOG_LEVEL: 'silent',
        WORKER: 'off',
      }),
    );
    const dataSource = await openDataSource(config.database, secretCipher(config));
    await migrate(dataSource);
    const { apiKey } = await seed(dataSource, 1000);
    await dataSource.destroy();
    const app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    const port = (app.getHttpServer().address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/api/send-sms/?api_key=${apiKey}&to=%2B33612345678&text=Hello`;
    await autocannon({ url, connections: 20, duration: 2, workers: 1 });

    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const result = await autocannon({ url, connections: 20, duration: SECONDS, workers: 1 });
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    session.disconnect();
    await app.close();
    if (process.env.PROFILE_OUT) {
      writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
    }

    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const byOwner = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let all = 0;
    profile.samples.forEach((id, index) => {
      const frame = byId.get(id)!.callFrame;
      const micros = profile.timeDeltas[index] ?? 0;
      const owner = ownerOf(frame);
      const name = `${frame.functionName || '(anonymous)'} ${owner}:${frame.lineNumber + 1}`;
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + micros);
      byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
      all += micros;
    });
    process.stdout.write(
      `# get_send_sms: ${result.requests.average.toFixed(0)} req/s, ` +
        `${result.non2xx} non-2xx; ${(all / 1000).toFixed(0)} ms sampled\n`,
    );
    printTable('Self time by package or file', byOwner, all);
    printTable('Self time by function', byFunction, all);
  } finally {
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench:profile failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
