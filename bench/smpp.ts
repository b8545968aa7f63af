/*
 * npm run bench:smpp — messages per second through the SMPP adapter, then the main thread's CPU
 * time per message.
 *
 *   BENCH_MESSAGES=300        (messages per run, default 300)
 *   BENCH_DELAYS=1,10,50      (how long the SMSC takes to answer each submit_sm, in ms)
 *   BENCH_CPU=50000           (messages of each run of the CPU part; 0 leaves it out)
 *   BENCH_BEFORE=<file>       (another SmppAdapter to compare the CPU part with, e.g. an older
 *                              src/adapters/smpp/smpp.adapter.ts extracted with git archive
 *                              under this folder, where its imports resolve)
 *   BENCH_ROUNDS=3            (rounds of the CPU part; each side runs first in turn)
 *
 * The messages go as the dispatch worker sends them: 32 sends in flight at once through
 * `SmppAdapter.send`, to the fake SMSC of the tests on 127.0.0.1, which answers each submit_sm
 * after the delay, with TCP_NODELAY on its side so that its answers do not wait for smsgw's
 * ACKs. For each delay it prints messages per second and the time of the run for one session
 * with max_pending_submits 1 (one message at a time), 10 (the default) and 32, and three
 * sessions of 10.
 *
 * The CPU part sends BENCH_CPU messages the same way to a bare SMSC in a thread of its own
 * (answering at once), and prints the CPU time of the main thread alone (from
 * /proc/self/task/<pid>/stat, so Linux only), that of the whole process, and the wall time.
 */
import { Logger } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { AdapterData, OutgoingSms, SendResult } from '../src/adapters/adapter';
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
}

const SETUPS: Setup[] = [
  { name: '1 session, max_pending_submits 1', data: { max_pending_submits: '1' } },
  { name: '1 session, max_pending_submits 10', data: {} },
  { name: '1 session, max_pending_submits 32', data: { max_pending_submits: '32' } },
  { name: '3 sessions (binds 3), max_pending_submits 10', data: { binds: '3' } },
];

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
    await adapter.onApplicationShutdown();
    await smsc.stop();
  }
}

const CPU_MESSAGES = Number(process.env.BENCH_CPU ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** stat(5)'s unit of utime and stime, USER_HZ: 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

interface SendingAdapter {
  send(data: AdapterData, sms: OutgoingSms): Promise<SendResult>;
  onApplicationShutdown(): Promise<void>;
}

type AdapterClass = new (...deps: ReturnType<typeof adapterDeps>) => SendingAdapter;

/**
 * An SMSC as bare as it gets, in a thread of its own so that its work is not the main
 * thread's: binds anyone, answers each submit_sm at once.
 */
const SMSC_THREAD = `
const { parentPort } = require('node:worker_threads');
const smpp = require('smpp');
let ids = 0;
const server = smpp.createServer((session) => {
  session.socket.setNoDelay(true);
  session.on('error', () => undefined);
  session.on('bind_transceiver', (pdu) => session.send(pdu.response()));
  session.on('enquire_link', (pdu) => session.send(pdu.response()));
  session.on('unbind', (pdu) => { session.send(pdu.response()); session.close(); });
  session.on('submit_sm', (pdu) => session.send(pdu.response({ message_id: 'msg-' + ++ids })));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** The main thread's CPU time so far (user and system), in ms. */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  // After the command name: state is field 3 of stat(5), utime 14 and stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

interface CpuFigures {
  mainMs: number;
  processMs: number;
  wallMs: number;
}

/** `CPU_MESSAGES` sends, `LANES` at a time, after a warm-up of its own. */
async function cpuRun(Adapter: AdapterClass, port: number): Promise<CpuFigures> {
  const adapter = new Adapter(...adapterDeps());
  const data = {
    host: '127.0.0.1',
    port: String(port),
    system_id: 'smsgw',
    password: 'secret',
    source_addr: '+33612345678',
  };
  const sendAll = async (count: number) => {
    let next = 0;
    let failed = 0;
    const lane = async () => {
      while (next < count) {
        next++;
        const destination = `+336${String(next).padStart(8, '0')}`;
        if ((await adapter.send(data, outgoingSms({ destination }))).outcome !== 'sent') {
          failed++;
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    if (failed > 0) {
      throw new Error(`${failed} of ${count} sends failed.`);
    }
  };
  try {
    await sendAll(2_000);
    const main = mainThreadCpuMs();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await sendAll(CPU_MESSAGES);
    const used = process.cpuUsage(cpu);
    return {
      mainMs: mainThreadCpuMs() - main,
      processMs: (used.user + used.system) / 1000,
      wallMs: performance.now() - started,
    };
  } finally {
    await adapter.onApplicationShutdown();
  }
}

async function cpu(): Promise<void> {
  const sides: Array<[string, AdapterClass]> = [['this tree', SmppAdapter]];
  if (process.env.BENCH_BEFORE) {
    const before = (await import(process.env.BENCH_BEFORE)) as { SmppAdapter: AdapterClass };
    sides.unshift(['BENCH_BEFORE', before.SmppAdapter]);
  }
  const smsc = new Worker(SMSC_THREAD, { eval: true });
  const port = await new Promise<number>((resolve) => smsc.once('message', resolve));
  console.log(
    `${CPU_MESSAGES} messages, ${LANES} sends in flight, SMSC in its own thread answering at once:\n`,
  );
  console.log(
    `  ${'round side'.padEnd(18)} ${'main thread'.padStart(12)} ${'µs/msg'.padStart(7)} ${'process'.padStart(9)} ${'wall'.padStart(8)} ${'msg/s'.padStart(7)}`,
  );
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const [name, Adapter] of order) {
        const { mainMs, processMs, wallMs } = await cpuRun(Adapter, port);
        console.log(
          `  ${`${round} ${name}`.padEnd(18)} ${mainMs.toFixed(0).padStart(9)} ms ${((mainMs * 1000) / CPU_MESSAGES).toFixed(1).padStart(7)} ${processMs.toFixed(0).padStart(6)} ms ${wallMs.toFixed(0).padStart(5)} ms ${((CPU_MESSAGES / wallMs) * 1000).toFixed(0).padStart(7)}`,
        );
      }
    }
  } finally {
    await smsc.terminate();
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
  if (CPU_MESSAGES > 0) {
    await cpu();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
