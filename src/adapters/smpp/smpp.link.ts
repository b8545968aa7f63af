import { Logger } from '@nestjs/common';
import { PDU, Session, connect, errors } from 'smpp';
import {
  OutboundPolicy,
  OutboundRefusal,
  outboundRefusalOf,
} from '../../common/net/outbound-policy';
import { AdapterData, InboundSink, ListenedPhone, SendResult } from '../adapter';
import { describeNetworkError, formatDuration } from '../provider-http';
import { CREDENTIAL_STATUSES, readDeliverSm, statusName, submitResult } from './smpp.codec';

const SMPP_VERSION_3_4 = 0x34;

export interface SmppTimings {
  /** Between two enquire_link, which keep a quiet session through SMSC idle timers and NATs. */
  enquireLinkMs: number;
  /** The first wait before binding again after a failure; each failure doubles it up to the max. */
  retryFirstMs: number;
  retryMaxMs: number;
}

/** `refusal` when the outbound policy refused the SMSC's address. */
export type BindOutcome =
  | { ok: true; session: Session }
  | { ok: false; reason: string; permanent: boolean; refusal?: OutboundRefusal };

type Failure = Extract<BindOutcome, { ok: false }>;

export interface SmppListener {
  phone: ListenedPhone;
  sink: InboundSink;
}

/**
 * One transceiver session to an SMSC, shared by the sends and the listeners of every phone
 * with the same connection data, bound on demand and, while someone listens, bound again
 * after it drops. A send only ever waits for a bind already under way or due within its
 * timeout: during a long back-off it fails at once with the last reason.
 */
export class SmppLink {
  private readonly logger = new Logger(SmppLink.name);
  private state: 'idle' | 'binding' | 'bound' | 'waiting' | 'closed' = 'idle';
  private session: Session | null = null;
  private sessionClosed: Promise<void> = Promise.resolve();
  private lastFailure: Failure | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryAt = 0;
  private retryDelay: number;
  private readonly waiters = new Set<(outcome: BindOutcome) => void>();
  /** Settles each submit_sm written and not yet answered. */
  private readonly unanswered = new Set<(result: SendResult) => void>();
  private readonly listeners = new Set<SmppListener>();

  constructor(
    private data: AdapterData,
    private readonly timeoutMs: number,
    private readonly timings: SmppTimings,
    private readonly outbound: OutboundPolicy,
  ) {
    this.retryDelay = timings.retryFirstMs;
  }

  /** Takes the phone's newest data (a corrected password) for the next binds. */
  adopt(data: AdapterData): void {
    this.data = data;
  }

  /** Whether a session is bound with this password. */
  boundWith(password: string): boolean {
    return this.state === 'bound' && this.data.password === password;
  }

  /** The bound session, binding one if needed, or why there is none within the timeout. */
  bound(): Promise<BindOutcome> {
    switch (this.state) {
      case 'bound':
        return Promise.resolve({ ok: true, session: this.session as Session });
      case 'closed':
        return Promise.resolve(this.closedFailure());
      case 'waiting':
        if (this.lastFailure && this.retryAt > Date.now() + this.timeoutMs) {
          return Promise.resolve(this.lastFailure);
        }
        break;
      case 'idle':
        this.attempt();
        break;
      case 'binding':
        break;
    }
    return new Promise((resolve) => {
      const waiter = (outcome: BindOutcome) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(outcome);
      };
      const timer = setTimeout(
        () =>
          waiter({
            ok: false,
            permanent: false,
            reason: `Could not bind to the SMSC at ${this.where} within ${formatDuration(this.timeoutMs)}.`,
          }),
        this.timeoutMs,
      );
      this.waiters.add(waiter);
    });
  }

  /**
   * Submits one message. Failing before the submit_sm is written is transient; once written,
   * the SMSC may have taken the message even if no answer comes back, so a lost connection or
   * a missing answer is a permanent failure saying so: sending it again could send it twice.
   */
  async submit(fields: Record<string, unknown>): Promise<SendResult> {
    const bound = await this.bound();
    if (!bound.ok) {
      return { outcome: bound.permanent ? 'permanent' : 'transient', reason: bound.reason };
    }
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: SendResult) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          this.unanswered.delete(settle);
          resolve(result);
        }
      };
      const timer = setTimeout(
        () =>
          settle(
            this.unknownOutcome(
              `did not answer the message within ${formatDuration(this.timeoutMs)}`,
            ),
          ),
        this.timeoutMs,
      );
      const written = bound.session.submit_sm(fields, (response) => settle(submitResult(response)));
      if (written) {
        this.unanswered.add(settle);
      } else {
        settle({
          outcome: 'transient',
          reason: `The connection to the SMSC at ${this.where} closed before the message was handed to it.`,
        });
      }
    });
  }

  /** Reports what the SMSC delivers to `listener` from now on, binding if needed. */
  listen(listener: SmppListener): void {
    this.listeners.add(listener);
    if (this.state === 'idle') {
      this.attempt();
    }
  }

  /** Stops reporting to `listener`; how many listeners remain. */
  unlisten(listener: SmppListener): number {
    this.listeners.delete(listener);
    return this.listeners.size;
  }

  /** Unbinds and closes the session for good; a send still waiting for a bind fails. */
  async close(): Promise<void> {
    if (this.state === 'closed') {
      return;
    }
    const wasBound = this.state === 'bound';
    this.state = 'closed';
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    for (const waiter of [...this.waiters]) {
      waiter(this.closedFailure());
    }
    const session = this.session;
    const closed = this.sessionClosed;
    if (!session) {
      return;
    }
    if (wasBound) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, this.timeoutMs);
        void closed.then(done);
        if (!session.unbind(done)) {
          done();
        }
      });
    }
    session.destroy();
    await closed;
  }

  private get where(): string {
    return `${this.data.host}:${this.data.port}`;
  }

  private closedFailure(): Failure {
    return {
      ok: false,
      permanent: false,
      reason: `smsgw closed its session to the SMSC at ${this.where} before it was bound.`,
    };
  }

  private unknownOutcome(what: string): SendResult {
    return {
      outcome: 'permanent',
      reason: `The SMSC at ${this.where} ${what}: whether it took the message is unknown, so it is not sent again.`,
    };
  }

  private attempt(): void {
    this.state = 'binding';
    const where = this.where;
    const timeout = formatDuration(this.timeoutMs);
    // The host is the user's: only an address the outbound policy allows is connected to.
    const target = this.outbound.target(this.data.host);
    if (target instanceof OutboundRefusal) {
      this.session = null;
      // Later, so that the sends that started this attempt are waiting for its outcome.
      setImmediate(() => this.attempted(null, this.refused(target)));
      return;
    }
    const session = connect({
      host: target.host,
      port: Number(this.data.port),
      lookup: target.lookup,
      auto_enquire_link_period: this.timings.enquireLinkMs,
    });
    this.session = session;
    this.sessionClosed = new Promise((resolve) => session.once('close', () => resolve()));
    let stage: 'connecting' | 'binding' | 'bound' = 'connecting';
    let errorCode: string | undefined;
    let refusal: OutboundRefusal | null = null;
    let enquiriesUnanswered = 0;
    const fail = (reason: string, permanent = false) => {
      clearTimeout(timer);
      session.destroy();
      this.attempted(session, { ok: false, reason, permanent });
    };
    const timer = setTimeout(
      () =>
        fail(
          stage === 'connecting'
            ? `Could not reach the SMSC at ${where} within ${timeout}.`
            : `The SMSC at ${where} did not answer the bind within ${timeout}.`,
        ),
      this.timeoutMs,
    );

    // The package reports unreadable PDUs as errors without closing, and then reads no more.
    session.on('error', (error: NodeJS.ErrnoException) => {
      errorCode ??= error.code;
      refusal ??= outboundRefusalOf(error);
      session.destroy();
    });
    session.on('close', () => {
      if (stage === 'bound') {
        this.dropped(session);
      } else if (refusal) {
        clearTimeout(timer);
        this.attempted(session, this.refused(refusal));
      } else if (stage === 'connecting') {
        fail(`Could not reach the SMSC at ${where} (${describeNetworkError(errorCode)}).`);
      } else {
        fail(
          errorCode
            ? `The SMSC at ${where} broke the connection (${describeNetworkError(errorCode)}).`
            : `The SMSC at ${where} closed the connection before answering the bind.`,
        );
      }
    });
    session.on('connect', () => {
      stage = 'binding';
      session.bind_transceiver(
        {
          system_id: this.data.system_id,
          password: this.data.password,
          system_type: this.data.system_type ?? '',
          interface_version: SMPP_VERSION_3_4,
        },
        (response) => {
          if (stage !== 'binding') {
            return;
          }
          if (response.command_status !== errors.ESME_ROK) {
            fail(
              `The SMSC refused the bind with ${statusName(response.command_status)}: check system_id, password and system_type.`,
              CREDENTIAL_STATUSES.has(response.command_status),
            );
            return;
          }
          stage = 'bound';
          clearTimeout(timer);
          this.attempted(session, { ok: true, session });
        },
      );
    });

    // A peer that lets a whole enquire_link period pass without a word is gone, even when
    // TCP has not noticed: drop the session so that it is bound again.
    session.on('pdu', () => {
      enquiriesUnanswered = 0;
    });
    session.on('send', (pdu: PDU) => {
      if (pdu.command === 'enquire_link' && enquiriesUnanswered++ > 0) {
        this.logger.warn(`The SMSC at ${where} stopped answering enquire_link.`);
        session.destroy();
      }
    });
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('unknown', (pdu: PDU) => session.send(pdu.response()));
    session.on('deliver_sm', (pdu: PDU) => void this.deliver(session, pdu));
  }

  /** A bind the outbound policy refused: it will refuse it again, so the failure is permanent. */
  private refused(refusal: OutboundRefusal): Failure {
    return {
      ok: false,
      permanent: true,
      refusal,
      reason: `smsgw does not connect to the SMSC at ${this.where}: ${refusal.message}`,
    };
  }

  /**
   * The end of a bind attempt (with no session when none was opened): hand its outcome to the
   * waiting sends, retry if listened to.
   */
  private attempted(session: Session | null, outcome: BindOutcome): void {
    if (this.session !== session || this.state !== 'binding') {
      return;
    }
    if (outcome.ok) {
      if (this.lastFailure) {
        this.logger.log(`Bound to the SMSC at ${this.where} again.`);
      }
      this.state = 'bound';
      this.lastFailure = null;
      this.retryDelay = this.timings.retryFirstMs;
    } else {
      this.session = null;
      this.lastFailure = outcome;
      this.retryLater(outcome.reason);
    }
    for (const waiter of [...this.waiters]) {
      waiter(outcome);
    }
  }

  private dropped(session: Session): void {
    for (const settle of [...this.unanswered]) {
      settle(this.unknownOutcome('closed the connection before answering the message'));
    }
    if (this.session !== session || this.state === 'closed') {
      return;
    }
    this.session = null;
    this.lastFailure = {
      ok: false,
      permanent: false,
      reason: `The session to the SMSC at ${this.where} dropped.`,
    };
    this.retryLater(this.lastFailure.reason);
  }

  private retryLater(reason: string): void {
    if (this.listeners.size === 0) {
      this.state = 'idle';
      return;
    }
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, this.timings.retryMaxMs);
    this.state = 'waiting';
    this.retryAt = Date.now() + delay;
    this.logger.warn(`${reason} Binding again in ${formatDuration(delay)}.`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.attempt();
    }, delay);
  }

  /**
   * Reports one deliver_sm and only then answers it, so that the SMSC delivers it again if
   * smsgw stops first; when reporting fails, ESME_RX_T_APPN asks the SMSC to retry later.
   */
  private async deliver(session: Session, pdu: PDU): Promise<void> {
    const delivery = readDeliverSm(pdu);
    const listeners = [...this.listeners];
    let status = errors.ESME_ROK;
    switch (delivery.kind) {
      case 'receipt': {
        const report = delivery.report;
        if (!report) {
          this.logger.warn(`The SMSC at ${this.where} sent a delivery receipt without an id.`);
        } else if (listeners.length === 0) {
          // Refusing it would have the SMSC retry it on this session, which only sends use
          // (the worker listens to every SMPP phone): a receipt nobody listens for is dropped.
          this.logger.warn(
            `Dropped the receipt of ${report.uid}: no phone listens at ${this.where}.`,
          );
        } else {
          status = await this.report(listeners, 'receipt', ({ phone, sink }) =>
            sink.status(phone, report),
          );
        }
        break;
      }
      case 'message': {
        const sms = delivery.sms;
        if (listeners.length === 0) {
          // A user's message is never dropped: the SMSC keeps it and delivers it again later.
          status = errors.ESME_RX_T_APPN;
        } else {
          status = await this.report(listeners, 'message', ({ phone, sink }) =>
            sink.received(phone, sms),
          );
        }
        break;
      }
      case 'other':
        break;
    }
    session.send(pdu.response({ command_status: status }));
  }

  private async report(
    listeners: SmppListener[],
    what: string,
    call: (listener: SmppListener) => Promise<void>,
  ): Promise<number> {
    const results = await Promise.allSettled(listeners.map((listener) => call(listener)));
    let status = errors.ESME_ROK;
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        status = errors.ESME_RX_T_APPN;
        const error =
          result.reason instanceof Error ? result.reason.message : String(result.reason);
        this.logger.error(
          `Phone ${listeners[index].phone.id} could not record an SMPP ${what} (${error}); the SMSC will deliver it again.`,
        );
      }
    });
    return status;
  }
}
