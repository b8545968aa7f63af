import { AddressInfo } from 'node:net';
import request from 'supertest';
import { PDU, Server, Session, createServer } from 'smpp';
import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { api } from '../support/api-client';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * What providers push over their own connection reaches the API through the worker: an SMSC on
 * 127.0.0.1 (the `smpp` package's server) takes a message, then sends its delivery receipt and
 * an inbound STOP over the session the inline worker keeps bound for the phone.
 */

/** An SMSC that accepts smsgw's bind and every message, numbering them. */
class Smsc {
  readonly sessions: Session[] = [];
  readonly submitted: PDU[] = [];
  private server!: Server;

  async start(): Promise<number> {
    this.server = createServer((session: Session) => {
      this.sessions.push(session);
      session.on('error', () => undefined);
      session.on('bind_transceiver', (pdu: PDU) => session.send(pdu.response()));
      session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
      session.on('unbind', (pdu: PDU) => {
        session.send(pdu.response());
        session.close();
      });
      session.on('submit_sm', (pdu: PDU) => {
        this.submitted.push(pdu);
        session.send(pdu.response({ message_id: `msg-${this.submitted.length}` }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Sends a deliver_sm on the last session; resolves to smsgw's answer. */
  deliver(fields: Record<string, unknown>): Promise<PDU> {
    const session = this.sessions[this.sessions.length - 1];
    return new Promise((resolve) => session.deliver_sm(fields, resolve));
  }

  stop(): Promise<void> {
    for (const session of this.sessions) {
      session.destroy();
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describeEachDatabase('listening adapters through the worker (SMPP)', (database) => {
  let smsc: Smsc;
  let t: TestApp;
  let ds: DataSource;
  let apiKey: string;

  beforeAll(async () => {
    smsc = new Smsc();
    const port = await smsc.start();
    // The phone exists before the app starts: the worker starts its listeners at boot.
    t = await startApp(database(), { WORKER: 'off' });
    const made = await makeUser(t.dataSource);
    apiKey = made.apiKey;
    await makePhone(t.dataSource, made.user.id, {
      adapter: 'smpp',
      adapter_data: JSON.stringify({
        host: '127.0.0.1',
        port: String(port),
        system_id: 'smsgw',
        password: 'secret',
        source_addr: '+33600000000',
      }),
    });
    await t.close();
    t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
    await smsc.stop();
  });

  it('sends through the session, then applies the receipt the SMSC delivers on it', async () => {
    const scheduled = await request(t.url)
      .post('/api/scheduled/')
      .query({ api_key: apiKey })
      .send({ text: 'Hello', numbers: ['+33612345678'] });
    expect(scheduled.status).toBe(201);
    await waitFor(async () => (await api(t, apiKey).list('sended')).length === 1, 'the sent entry');

    const answer = await smsc.deliver({
      source_addr: '33612345678',
      destination_addr: '33600000000',
      esm_class: 0x04,
      short_message:
        'id:msg-1 sub:001 dlvrd:001 submit date:2611221200 done date:2611221201 stat:DELIVRD err:000 text:Hello',
    });
    await waitFor(
      async () => (await api(t, apiKey).list('sended'))[0].status === 'delivered',
      'the receipt',
    );

    expect(smsc.submitted.map((pdu) => pdu.destination_addr)).toEqual(['33612345678']);
    expect(answer.command_status).toBe(0);
    expect((await api(t, apiKey).list('sended'))[0]).toMatchObject({
      uid: 'msg-1',
      status: 'delivered',
    });
  });

  it('stores an inbound message the SMSC delivers, and a STOP puts its sender on the STOP list', async () => {
    const answer = await smsc.deliver({
      source_addr: '33612345679',
      source_addr_ton: 1,
      destination_addr: '33600000000',
      esm_class: 0,
      short_message: 'STOP',
    });

    expect(answer.command_status).toBe(0);
    expect(await api(t, apiKey).list('received')).toMatchObject([
      { origin: '+33612345679', text: 'STOP' },
    ]);
    const stops = await ds.query<Array<{ number: string }>>('SELECT number FROM smsstop');
    expect(stops).toEqual([{ number: '+33612345679' }]);
  });
});
