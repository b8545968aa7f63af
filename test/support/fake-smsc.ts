import { EventEmitter } from 'node:events';
import { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { PDU, Server, Session, createServer, errors } from 'smpp';

/**
 * An SMSC from the `smpp` package's own server, on 127.0.0.1: it binds `systemId`/`password`
 * (`smsgw`/`secret` unless set), refuses other credentials with the status SMPP defines, answers unbind and enquire_link,
 * accepts each submit_sm with the message id `msg-<n>` (after `submitDelayMs`, as a real SMSC
 * takes its time), and records every PDU it receives, when each submit_sm arrived, and the
 * most submit_sm a session had unanswered at once.
 *
 * Its sockets keep Nagle's algorithm on, as the package leaves them, unless `noDelay` is set
 * before the client connects: with it on, a burst of answers waits for the client's TCP ACK,
 * which would blur what a test measures of the client's own sends.
 */
export class FakeSmsc {
  mode: 'normal' | 'silent' | 'hang_up' = 'normal';
  systemId = 'smsgw';
  password = 'secret';
  refuseBindWith: number | null = null;
  answersEnquireLink = true;
  submitDelayMs = 0;
  noDelay = false;
  answerSubmit: (pdu: PDU, session: Session) => void = (pdu, session) => {
    const answer = pdu.response({ message_id: `msg-${this.count('submit_sm')}` });
    if (this.submitDelayMs > 0) {
      setTimeout(() => session.send(answer), this.submitDelayMs);
    } else {
      session.send(answer);
    }
  };
  readonly received: PDU[] = [];
  readonly sessions: Session[] = [];
  /** The sessions whose bind it accepted, in order. */
  readonly bound: Session[] = [];
  /** `performance.now()` at each submit_sm's arrival, in order. */
  readonly submitArrivals: number[] = [];
  /** The most submit_sm one session had received and not yet answered at once. */
  maxUnanswered = 0;
  private readonly unanswered = new Map<Session, number>();
  private readonly submits = new Map<Session, number>();
  private readonly events = new EventEmitter();
  readonly server: Server = createServer((session: Session) => {
    if (this.noDelay) {
      session.socket.setNoDelay(true);
    }
    this.sessions.push(session);
    session.on('error', () => undefined);
    session.on('pdu', (pdu: PDU) => {
      this.received.push(pdu);
      this.events.emit('pdu');
    });
    session.on('bind_transceiver', (pdu: PDU) => {
      if (this.mode === 'silent') {
        return;
      }
      if (this.mode === 'hang_up') {
        session.close();
        return;
      }
      const status =
        this.refuseBindWith ??
        (pdu.system_id !== this.systemId
          ? errors.ESME_RINVSYSID
          : pdu.password !== this.password
            ? errors.ESME_RINVPASWD
            : errors.ESME_ROK);
      if (status === errors.ESME_ROK) {
        this.bound.push(session);
      }
      session.send(pdu.response({ command_status: status }));
    });
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('enquire_link', (pdu: PDU) => {
      if (this.answersEnquireLink) {
        session.send(pdu.response());
      }
    });
    session.on('submit_sm', (pdu: PDU) => {
      this.submitArrivals.push(performance.now());
      this.submits.set(session, this.submitsOn(session) + 1);
      const unanswered = (this.unanswered.get(session) ?? 0) + 1;
      this.unanswered.set(session, unanswered);
      this.maxUnanswered = Math.max(this.maxUnanswered, unanswered);
      this.answerSubmit(pdu, session);
    });
    session.on('send', (pdu: PDU) => {
      if (pdu.command === 'submit_sm_resp') {
        this.unanswered.set(session, (this.unanswered.get(session) ?? 1) - 1);
      }
    });
  });

  /** The requests received, less keep-alives. */
  get commands(): string[] {
    return this.received
      .filter((pdu) => !pdu.isResponse() && pdu.command !== 'enquire_link')
      .map((pdu) => pdu.command);
  }

  get binds(): PDU[] {
    return this.received.filter((pdu) => pdu.command === 'bind_transceiver');
  }

  count(command: string): number {
    return this.received.filter((pdu) => pdu.command === command).length;
  }

  /** The submit_sm received on `session`. */
  submitsOn(session: Session): number {
    return this.submits.get(session) ?? 0;
  }

  /** The `nth` PDU of `command` received, once it is. */
  async nth(command: string, nth = 1): Promise<PDU> {
    for (;;) {
      const found = this.received.filter((pdu) => pdu.command === command)[nth - 1];
      if (found) {
        return found;
      }
      await new Promise((resolve) => this.events.once('pdu', resolve));
    }
  }

  /** The session of the `nth` bind, once the client has read the answer to it. */
  async boundSession(nth = 1): Promise<Session> {
    await this.nth('bind_transceiver', nth);
    const session = this.sessions[this.sessions.length - 1];
    await this.roundTrip(session);
    return session;
  }

  /** Sends a deliver_sm on `session`; resolves to the client's deliver_sm_resp. */
  deliver(session: Session, fields: Record<string, unknown>): Promise<PDU> {
    return new Promise((resolve) => session.deliver_sm(fields, resolve));
  }

  /** An enquire_link round trip: everything the client sent before answering it has arrived. */
  roundTrip(session: Session): Promise<PDU> {
    return new Promise((resolve) => session.enquire_link({}, resolve));
  }

  /** Listens on 127.0.0.1, or with `'::'` on every local address (where 0.0.0.0 would reach). */
  async start(host: '127.0.0.1' | '::' = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    for (const session of this.sessions) {
      session.destroy();
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
