/*
 * npm run bench:smpp — messages per second through the SMPP adapter.
 *
 *   BENCH_MESSAGES=300        (messages per run, default 300)
 *   BENCH_DELAYS=1,10,50      (how long the SMSC takes to answer each submit_sm, in ms)
 *
 * The messages go as the dispatch worker sends them: 32 sends in flight at once through
 * `SmppAdapter.send`, to the fake SMSC of the tests on 127.0.0.1, which answers each submit_sm
 * after the delay, with TCP_NODELAY on its side so that its answers do not wait for smsgw's
 * ACKs. For each delay it prints messages per second and the time of the run for one session
 * with max_pending_submits 1 (one message at a time), 10 (the default) and 32, three sessions
 * of 10, the default once more with Nagle's algorithm left on (the bench takes TCP_NODELAY out
 * of the package's `connect`), and smsgw as it was before it had a window and set TCP_NODELAY:
 * every send written at once, Nagle on.
 */
import { Logger } from '@nestjs/common';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as Smpp from 'smpp';
import { SmppAdapter } from '../src/adapters/smpp/smpp.adapter';
import { adapterDeps, outgoingSms } from '../test/support/adapters.factories';
import { FakeSmsc } from '../test/support/fake-smsc';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);
const DELAYS = (process.env.BENCH_DELAYS ?? '1,10,50').split(',').map(Number);
/** The dispatch worker's sends in flight per batch. */
const LANES = 32;

interface Setup {
  name: string;
  data: Record<string, string>;
  nagle?: boolean;
}

const SETUPS: Setup[] = [
  { name: '1 session, max_pending_submits 1', data: { max_pending_submits: '1' } },
  { name: '1 session, max_pending_submits 10', data: {} },
  { name: '1 session, max_pending_submits 32', data: { max_pending_submits: '32' } },
  { name: '3 sessions (binds 3), max_pending_submits 10', data: { binds: '3' } },
  { name: '1 session, max_pending_submits 10, Nagle on', data: {}, nagle: true },
  {
    name: 'as before: no window (1000), Nagle on',
    data: { max_pending_submits: '1000' },
    nagle: true,
  },
];

/** The package's own exports (an import's are read-only): the adapter calls `connect` on them. */
const smpp = createRequire(__filename)('smpp') as { connect: typeof Smpp.connect };
const packageConnect = smpp.connect;

/** The milliseconds `MESSAGES` sends take, `LANES` at a time, after a first bind. */
async function run(setup: Setup, delayMs: number): Promise<number> {
  const smsc = new FakeSmsc();
  smsc.noDelay = true;
  const port = await smsc.start();
  const adapter = new SmppAdapter(...adapterDeps());
  const data = {
    host: '127.0.0.1',
    port: String(port),
    system_id: 'smsgw',
    password: 'secret',
    source_addr: '+33612345678',
    ...setup.data,
  };
  smpp.connect = setup.nagle
    ? (options) => packageConnect({ ...options, noDelay: false })
    : packageConnect;
  try {
    const first = await adapter.send(data, outgoingSms());
    if (first.outcome !== 'sent') {
      throw new Error(`The first send failed: ${JSON.stringify(first)}`);
    }
    smsc.submitDelayMs = delayMs;
    let next = 0;
    let failed = 0;
    const lane = async () => {
      while (next < MESSAGES) {
        next++;
        if ((await adapter.send(data, outgoingSms())).outcome !== 'sent') {
          failed++;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: LANES }, lane));
    const elapsed = performance.now() - started;
    if (failed > 0) {
      throw new Error(`${failed} of ${MESSAGES} sends failed (${setup.name}).`);
    }
    return elapsed;
  } finally {
    smpp.connect = packageConnect;
    await adapter.onApplicationShutdown();
    await smsc.stop();
  }
}

async function main(): Promise<void> {
  Logger.overrideLogger(['error']);
  // Unreported: the first run would otherwise pay for the JIT warming up.
  await run(SETUPS[1], 0);
  console.log(`${MESSAGES} messages, ${LANES} sends in flight, per SMSC answer delay:\n`);
  for (const delayMs of DELAYS) {
    console.log(`SMSC answers each submit_sm after ${delayMs} ms`);
    for (const setup of SETUPS) {
      const elapsed = await run(setup, delayMs);
      const rate = (MESSAGES / elapsed) * 1000;
      console.log(
        `  ${setup.name.padEnd(48)} ${rate.toFixed(0).padStart(7)} msg/s ${elapsed.toFixed(0).padStart(7)} ms`,
      );
    }
    console.log('');
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
