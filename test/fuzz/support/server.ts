import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readlinkSync, WriteStream } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { sendHttp } from './wire';

/*
 * The server under test: the compiled app (`dist/main.js`) as a child process, as it runs in
 * production. Its stdout (pino's JSON lines) and stderr (where Node writes a crash) go to log
 * files and are kept in memory until the fuzz reads them after each case.
 */

export const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const BOOT_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;
/** How long a request's log line may take to come through the pipe after its answer. */
const LOG_WAIT_MS = 2000;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ServerOptions {
  /** The app's configuration: DATABASE_URL, DATA_DIR and the rest. */
  env: Record<string, string>;
  dataDir: string;
  /** Where stdout and stderr are appended, across restarts. */
  logFile: string;
  stderrFile: string;
  /** A request every healthy server answers with a success envelope. */
  controlPath: string;
}

export class FuzzServer {
  port = 0;
  /** How many times the child died and was started again. */
  restarts = 0;
  private controls = 0;
  private child: ChildProcess | null = null;
  private exit: string | null = null;
  private out = '';
  private err = '';
  private readonly log: WriteStream;
  private readonly stderrLog: WriteStream;

  constructor(private readonly options: ServerOptions) {
    this.log = createWriteStream(options.logFile, { flags: 'a' });
    this.stderrLog = createWriteStream(options.stderrFile, { flags: 'a' });
  }

  get uploadDir(): string {
    return join(this.options.dataDir, 'tmp', 'uploads');
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the child is gone (exit code or signal), or null while it runs. */
  get exited(): string | null {
    return this.exit;
  }

  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      try {
        await this.spawnAndWait();
        return;
      } catch (error) {
        // Another process may have taken the port between the probe and the listen.
        if (attempt >= 3 || !/EADDRINUSE/.test(this.err)) {
          throw error;
        }
      }
    }
  }

  private async spawnAndWait(): Promise<void> {
    this.exit = null;
    const child = spawn(process.execPath, [MAIN], {
      // Not the checkout: a developer's .env there must not configure the server under test.
      cwd: this.options.dataDir,
      env: {
        PATH: process.env.PATH ?? '',
        ...this.options.env,
        PORT: String(this.port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => {
      this.log.write(chunk);
      this.out += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrLog.write(chunk);
      this.err += chunk.toString('utf8');
    });
    child.on('exit', (code, signal) => {
      this.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
    });
    const deadline = Date.now() + BOOT_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const exited = this.exited;
      if (exited) {
        throw new Error(`The server ${exited} while starting:\n${this.err.slice(-3000)}`);
      }
      if (await this.answersControl(2000)) {
        return;
      }
      await sleep(100);
    }
    throw new Error(`The server did not answer within ${BOOT_TIMEOUT_MS} ms of starting.`);
  }

  /** Whether the control request gets its success envelope within `timeoutMs`. */
  async answersControl(timeoutMs: number): Promise<boolean> {
    return (await this.control(timeoutMs)) === null;
  }

  /** Null when the control request gets its success envelope, else what went wrong. */
  private async control(timeoutMs: number, requestId?: string): Promise<string | null> {
    const answer = await sendHttp(
      this.port,
      {
        kind: 'http',
        method: 'GET',
        path: this.options.controlPath,
        headers: requestId ? [['X-Request-Id', requestId]] : [],
        body: null,
      },
      timeoutMs,
    );
    if (answer.status === 200 && answer.body.toString('utf8').startsWith('{"error":0,')) {
      return null;
    }
    if (answer.timedOut) {
      return `no answer within ${timeoutMs} ms`;
    }
    return answer.error ?? `HTTP ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`;
  }

  /**
   * Sends a control request and waits for its own log line: every line the server wrote before
   * it (those of the requests sent earlier) has then arrived. Returns why the control request
   * failed (null when it did not), and the output taken.
   */
  async sync(timeoutMs: number): Promise<{ failure: string | null; out: string; err: string }> {
    this.controls += 1;
    const id = `fuzz-control-${this.controls}`;
    const failure = await this.control(timeoutMs, id);
    const deadline = Date.now() + LOG_WAIT_MS;
    // Waits for the log line of a control request that was answered, or for the exit of a
    // child that refused it: a crash is then told as such.
    while (
      !this.exit &&
      Date.now() < deadline &&
      (failure === null ? !this.out.includes(`"${id}"`) : true)
    ) {
      await sleep(5);
    }
    return { failure, ...this.takeOutput() };
  }

  /** Kills a child that is still there (hung) and starts a new one. */
  async restart(): Promise<void> {
    await this.stop();
    this.restarts += 1;
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) {
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** What the child wrote since the last call: pino lines, and stderr. */
  takeOutput(): { out: string; err: string } {
    const taken = { out: this.out, err: this.err };
    this.out = '';
    this.err = '';
    return taken;
  }

  /** The files under the upload folder the child holds open (deleted ones marked so by Linux). */
  openUploads(): string[] {
    const pid = this.child?.pid;
    if (!pid || this.exit) {
      return [];
    }
    const folder = `/proc/${pid}/fd`;
    let descriptors: string[];
    try {
      descriptors = readdirSync(folder);
    } catch {
      return [];
    }
    const open: string[] = [];
    for (const descriptor of descriptors) {
      try {
        const target = readlinkSync(join(folder, descriptor));
        if (target.startsWith(this.uploadDir)) {
          open.push(target);
        }
      } catch {
        // Closed while we were reading.
      }
    }
    return open;
  }

  /** The temporary upload files on disk. */
  uploadFiles(): string[] {
    try {
      return readdirSync(this.uploadDir);
    } catch {
      return [];
    }
  }

  async close(): Promise<void> {
    await this.stop();
    await Promise.all(
      [this.log, this.stderrLog].map(
        (stream) => new Promise<void>((resolve) => stream.end(() => resolve())),
      ),
    );
  }
}
