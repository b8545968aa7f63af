import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A request as the recorder saw it arrive. */
export interface Arrival {
  /** The first segment of its path: which phone sent it, when each phone has its own. */
  phone: string;
  /** Its `to` query parameter (Kannel's recipient). */
  to: string;
  /** When its last byte arrived, in ms on the recorder's clock. */
  at: number;
}

/*
 * The recorder's own process: a Kannel fake that accepts every message and notes when each
 * arrives. In the test's process its clock would be read only once that process's event loop,
 * shared with the app, got to the request: how fast smsgw sends is measured where a provider
 * would measure it.
 */
const SCRIPT = `
const http = require('node:http');
const arrivals = [];
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const url = new URL(request.url, 'http://recorder');
    if (url.pathname === '/arrivals') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(arrivals));
      return;
    }
    arrivals.push({ phone: url.pathname.split('/')[1], to: url.searchParams.get('to') || '', at });
    response.writeHead(202, { 'Content-Type': 'text/plain' });
    response.end('0: Accepted for delivery');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

export class ArrivalRecorder {
  private constructor(
    private readonly child: ChildProcess,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  static async start(): Promise<ArrivalRecorder> {
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    return new ArrivalRecorder(child, `http://127.0.0.1:${chunk.toString().trim()}`);
  }

  async arrivals(): Promise<Arrival[]> {
    const response = await fetch(`${this.url}/arrivals`);
    return (await response.json()) as Arrival[];
  }

  async close(): Promise<void> {
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** The most arrivals in any window of `ms` (a window holds [t, t + ms)). */
export function busiestWindow(times: readonly number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] >= ms) {
      start++;
    }
    most = Math.max(most, end - start + 1);
  }
  return most;
}
