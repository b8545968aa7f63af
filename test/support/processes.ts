import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { TestDatabase } from './databases';

const DIST = join(__dirname, '..', '..', 'dist');

/**
 * Compiled worker or API processes (`script` under dist/), with only PATH and `env` for
 * environment, killed and started again on demand: the crash tests' dispatchers.
 */
export class Processes {
  /**
   * Dispatch processes on `database` as the crash tests run them: quiet, quick to poll, small
   * batches, and a dead worker's sends swept within seconds.
   */
  static dispatchers(
    script: string,
    database: TestDatabase,
    env: Record<string, string>,
  ): Processes {
    return new Processes(script, {
      DATABASE_URL: database.url,
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'silent',
      WORKER_TIMEOUT_MS: '1500',
      DISPATCH_POLL_MS: '50',
      DISPATCH_BATCH_SIZE: '100',
      ...env,
    });
  }

  private readonly children = new Set<ChildProcess>();

  constructor(
    private readonly script: string,
    private readonly env: Record<string, string>,
  ) {}

  start(): void {
    const child = spawn(process.execPath, [join(DIST, this.script)], {
      env: { PATH: process.env.PATH ?? '', ...this.env },
      stdio: 'ignore',
    });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
  }

  /** SIGKILLs one of them at random and starts a new one. */
  async killOneAndRestart(): Promise<void> {
    const all = [...this.children];
    const victim = all[Math.floor(Math.random() * all.length)];
    if (victim) {
      const exited = once(victim, 'exit');
      victim.kill('SIGKILL');
      await exited;
    }
    this.start();
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.children].map(async (child) => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
  }
}
