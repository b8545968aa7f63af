import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort } from './adapters.factories';

const DIST = join(__dirname, '..', '..', 'dist');

/** The compiled API (`dist/main.js`) running in a process of its own, its output kept whole. */
export interface BuiltApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** Stops it (SIGTERM, or `signal`) and resolves once it exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** What a process wrote and how it ended. */
export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a compiled entry point (`main.js`, `worker.js`) with `env` (and PATH only) in `cwd`
 * until it exits by itself, which a process refusing to start does; killed after 30 s.
 */
export function runBuilt(
  script: string,
  env: Record<string, string>,
  cwd: string,
): Promise<Exited> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(DIST, script)],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Throws unless `npm run build` (which `npm test` runs) has compiled `dist/`. */
export function requireBuild(): void {
  if (!existsSync(join(DIST, 'main.js'))) {
    throw new Error('dist/main.js is missing: run `npm run build` (npm test does it) first.');
  }
}

/**
 * Starts `dist/main.js` on 127.0.0.1 with `env` (and nothing of this process's environment but
 * PATH), in `cwd` so that no `.env` of the checkout is read, and resolves once `ready` answers
 * HTTP 200.
 */
export async function startBuiltApp(
  env: Record<string, string>,
  cwd: string,
  ready = '/api/docs-json',
): Promise<BuiltApp> {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}`;
  const chunks: Buffer[] = [];
  const child: ChildProcess = spawn(process.execPath, [join(DIST, 'main.js')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = once(child, 'exit');
  const output = () => Buffer.concat(chunks).toString('utf8');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`The app exited with code ${child.exitCode}:\n${output()}`);
    }
    const answer = await fetch(`${url}${ready}`).catch(() => null);
    if (answer?.status === 200) {
      break;
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The app did not answer within 30 s:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) {
        child.kill(signal);
      }
      await exited;
    },
  };
}
