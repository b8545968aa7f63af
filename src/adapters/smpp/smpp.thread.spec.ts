import { Logger } from '@nestjs/common';
import type { Worker } from 'node:worker_threads';
import {
  RecordingSink,
  adapterDeps,
  outgoingSms as sms,
} from '../../../test/support/adapters.factories';
import { FakeSmsc } from '../../../test/support/fake-smsc';
import { SmppAdapter } from './smpp.adapter';

/** Binds again within milliseconds, so that a listener's link is soon opened in a new thread. */
class QuickSmppAdapter extends SmppAdapter {
  protected override readonly timings = { enquireLinkMs: 1000, retryFirstMs: 5, retryMaxMs: 20 };
}

/** The adapter's SMPP thread, as the test reaches it. */
function threadOf(adapter: SmppAdapter): Worker {
  const worker = adapter['thread']['worker'];
  if (!worker) {
    throw new Error('The adapter has no SMPP thread.');
  }
  return worker;
}

describe('SmppThread', () => {
  let smsc: FakeSmsc;
  let data: Record<string, string>;
  let errorLogs: jest.SpyInstance;
  const adapter = new QuickSmppAdapter(...adapterDeps());

  beforeEach(async () => {
    smsc = new FakeSmsc();
    data = {
      host: '127.0.0.1',
      port: String(await smsc.start()),
      system_id: 'smsgw',
      password: 'secret',
      source_addr: '+33612345678',
    };
    errorLogs = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await adapter.onApplicationShutdown();
    jest.restoreAllMocks();
    await smsc.stop();
  });

  const send = (count: number, extra: Record<string, string> = {}) =>
    Promise.all(
      Array.from({ length: count }, (_, index) =>
        adapter.send(
          { ...data, ...extra },
          sms({ destination: `+336${String(index).padStart(8, '0')}` }),
        ),
      ),
    );

  it('never keeps the process alive: its thread holds no reference on the event loop', async () => {
    const ports = () =>
      process
        .getActiveResourcesInfo()
        .filter((kind) => kind === 'MessagePort' || kind === 'Worker');
    const before = ports().length;

    expect((await send(1)).map((result) => result.outcome)).toEqual(['sent']);

    expect(threadOf(adapter).threadId).toBeGreaterThan(0);
    expect(ports()).toHaveLength(before);
  });

  it('fails a message written when the thread dies as unknown, those not written as transient, and sends the next through a new thread', async () => {
    const answer = smsc.answerSubmit;
    smsc.answerSubmit = () => undefined;
    const sent = send(3, { max_pending_submits: '1' });
    await smsc.nth('submit_sm');
    const first = threadOf(adapter);

    await first.terminate();

    expect(await sent).toEqual([
      {
        outcome: 'ambiguous',
        reason: `The SMSC at 127.0.0.1:${data.port} had not answered the message when smsgw's SMPP thread stopped: whether it took the message is unknown, so it is not sent again.`,
      },
      ...Array(2).fill({
        outcome: 'transient',
        reason: `smsgw's SMPP thread stopped before the message was handed to the SMSC at 127.0.0.1:${data.port}.`,
      }),
    ]);
    expect(smsc.count('submit_sm')).toBe(1);
    expect(errorLogs).toHaveBeenCalledWith(
      'The SMPP thread stopped (exit code 1): its sessions are closed, and the next send starts another.',
    );

    smsc.answerSubmit = answer;
    expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'sent' });
    expect(threadOf(adapter)).not.toBe(first);
    expect(smsc.count('bind_transceiver')).toBe(2);
  });

  it('binds the sessions of a listened phone again in a new thread after a crash', async () => {
    const sink = new RecordingSink();
    const stop = adapter.listen({ id: 7, id_user: 1, data }, sink);
    await smsc.boundSession();

    // A message the thread cannot read throws out of it, as a bug would.
    threadOf(adapter).postMessage({ type: 'submit' });

    const session = await smsc.boundSession(2);
    await smsc.deliver(session, {
      source_addr_ton: 1,
      source_addr: '33687654321',
      esm_class: 0x04,
      short_message: 'id:msg-1 stat:DELIVRD',
    });
    expect(sink.statuses).toEqual([{ uid: 'msg-1', status: 'delivered' }]);
    await stop();
  });
});
