import { Logger } from '@nestjs/common';
import { PDU, Session, connect, errors } from 'smpp';
import {
  OutboundPolicy,
  OutboundRefusal,
  outboundRefusalOf,
} from '../../common/net/outbound-policy';
import { AdapterData, SendResult } from '../adapter';
import { describeNetworkError, formatDuration } from '../../common/net/http-answers';
import { CREDENTIAL_STATUSES, statusName, submitResult } from './smpp.codec';
import type { SubmitSm } from './smpp.submit';

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
  { ok: true } | { ok: false; reason: string; permanent: boolean; refusal?: OutboundRefusal };

export type BindFailure = Extract<BindOutcome, { ok: false }>;

export type BindState = 'idle' | 'binding' | 'bound' | 'waiting' | 'closed';

/** What a bind shares with the other binds of its link, and how it reports to the link. */
export interface BindContext {
  /** The phone's newest data: a corrected password is taken at the next bind. */
  data(): AdapterData;
  readonly timeoutMs: number;
  readonly timings: SmppTimings;
  readonly outbound: OutboundPolicy;
  /** A bind attempt ended, or a bound session dropped (then `outcome` is a failure). */
  settled(outcome: BindOutcome): void;
  /** A submit_sm of the bind was answered or given up on: its window has room again. */
  freed(): void;
  /** Whether a bind that failed or dropped binds again after its back-off, or waits for a send. */
  rebinds(bind: SmppBind): boolean;
  deliver(session: Session, pdu: PDU): Promise<void>;
}

/** What the logs and reasons call one session of a link: "session 2 of 3", or nothing for one. */
export interface BindName {
  index: number;
  of: number;
}

/**
 * One transceiver session to an SMSC, bound on demand and, when its link asks, bound again
 * after a failure with a doubling back-off. Its socket sends each PDU at once (TCP_NODELAY):
 * with Nagle's algorithm a submit_sm written while another is unacknowledged waits for the
 * SMSC's TCP ACK, which SMSCs that delay their ACKs hold up to 40 ms.
 */
export class SmppBind {
  private readonly logger = new Logger(SmppBind.name);
  private current: BindState = 'idle';
  private session: Session | null = null;
  private sessionClosed: Promise<void> = Promise.resolve();
  private failedBefore = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay: number;
  /** When the back-off of a `waiting` bind ends. */
  retryAt = 0;
  /** Settles each submit_sm written and not yet answered. */
  private readonly unanswered = new Set<(result: SendResult) => void>();
  /** Whether the socket's writes wait for the end of the tick (`corkUntilNextTick`). */
  private corked = false;

  constructor(
    private readonly context: BindContext,
    private readonly name: BindName,
  ) {
    this.retryDelay = context.timings.retryFirstMs;
  }

  get state(): BindState {
    return this.current;
  }

  /** The submit_sm written on this session and not yet answered. */
  get inFlight(): number {
    return this.unanswered.size;
  }

  /** Binds, unless the session is bound, binding or waiting for its back-off. */
  start(): void {
    if (this.current === 'idle') {
      this.attempt();
    }
  }

  /**
   * Writes one submit_sm on the bound session; null, writing nothing, when its connection is
   * no longer writable (the bind then counts as dropped). Once written, the SMSC may have taken
   * the message even if no answer comes back, so a lost connection or a missing answer is an
   * ambiguous outcome saying so: sending it again could send it twice.
   */
  submit(pdu: SubmitSm): Promise<SendResult> | null {
    const session = this.session;
    if (this.current !== 'bound' || !session) {
      return null;
    }
    this.corkUntilNextTick(session);
    let settle: (result: SendResult) => void = () => undefined;
    if (!session.send(pdu, (response) => settle(submitResult(response)))) {
      session.destroy();
      this.dropped(session);
      return null;
    }
    return new Promise((resolve) => {
      let settled = false;
      const timer = setTimeout(
        () =>
          settle(
            this.unknownOutcome(
              `did not answer the message within ${formatDuration(this.context.timeoutMs)}`,
            ),
          ),
        this.context.timeoutMs,
      );
      settle = (result: SendResult) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          this.unanswered.delete(settle);
          resolve(result);
          this.context.freed();
        }
      };
      this.unanswered.add(settle);
    });
  }

  /**
   * Holds the socket's writes until the end of this tick, when they leave together: the answers
   * to a window of submits arrive in one read and each frees room for the next submit, so a
   * write per submit would cost a system call per message. TCP_NODELAY still sends them at once.
   */
  private corkUntilNextTick(session: Session): void {
    if (this.corked) {
      return;
    }
    this.corked = true;
    session.socket.cork();
    process.nextTick(() => {
      this.corked = false;
      session.socket.uncork();
    });
  }

  /** Whether this session is bound with this password. */
  boundWith(password: string): boolean {
    return this.current === 'bound' && this.context.data().password === password;
  }

  /** Unbinds and closes the session for good; its unanswered messages fail as unknown. */
  async close(): Promise<void> {
    if (this.current === 'closed') {
      return;
    }
    const wasBound = this.current === 'bound';
    this.current = 'closed';
    if (this.retryTimer) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
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
        const timer = setTimeout(done, this.context.timeoutMs);
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
    const data = this.context.data();
    return `${data.host}:${data.port}`;
  }

  /** `session 2 of 3` when the link has several, for the logs; null when it has one. */
  private get sessionName(): string | null {
    return this.name.of > 1 ? `session ${this.name.index} of ${this.name.of}` : null;
  }

  private unknownOutcome(what: string): SendResult {
    return {
      outcome: 'ambiguous',
      reason: `The SMSC at ${this.where} ${what}: whether it took the message is unknown, so it is not sent again.`,
    };
  }

  private attempt(): void {
    this.current = 'binding';
    const data = this.context.data();
    const where = this.where;
    const timeout = formatDuration(this.context.timeoutMs);
    // The host is the user's: only an address the outbound policy allows is connected to.
    const target = this.context.outbound.target(data.host);
    if (target instanceof OutboundRefusal) {
      this.session = null;
      // Later, so that the sends that started this attempt are waiting for its outcome.
      setImmediate(() => this.attempted(null, this.refused(target)));
      return;
    }
    const session = connect({
      host: target.host,
      port: Number(data.port),
      lookup: target.lookup,
      noDelay: true,
      auto_enquire_link_period: this.context.timings.enquireLinkMs,
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
      this.context.timeoutMs,
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
          system_id: data.system_id,
          password: data.password,
          system_type: data.system_type ?? '',
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
          this.attempted(session, { ok: true });
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
        this.logger.warn(
          `The SMSC at ${where} stopped answering enquire_link${this.sessionName ? ` on ${this.sessionName}` : ''}.`,
        );
        session.destroy();
      }
    });
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('unknown', (pdu: PDU) => session.send(pdu.response()));
    session.on('deliver_sm', (pdu: PDU) => void this.context.deliver(session, pdu));
  }

  /** A bind the outbound policy refused: it will refuse it again, so the failure is permanent. */
  private refused(refusal: OutboundRefusal): BindFailure {
    return {
      ok: false,
      permanent: true,
      refusal,
      reason: `smsgw does not connect to the SMSC at ${this.where}: ${refusal.message}`,
    };
  }

  /** The end of a bind attempt (with no session when none was opened). */
  private attempted(session: Session | null, outcome: BindOutcome): void {
    if (this.session !== session || this.current !== 'binding') {
      return;
    }
    if (outcome.ok) {
      if (this.failedBefore) {
        this.logger.log(
          `Bound ${this.sessionName ? `${this.sessionName} ` : ''}to the SMSC at ${this.where} again.`,
        );
      }
      this.current = 'bound';
      this.failedBefore = false;
      this.retryDelay = this.context.timings.retryFirstMs;
    } else {
      this.session = null;
      this.failedBefore = true;
      this.retryLater(outcome.reason);
    }
    this.context.settled(outcome);
  }

  private dropped(session: Session): void {
    const current = this.session === session && this.current === 'bound';
    if (current) {
      // Before the unanswered messages are settled, so that the room they free is not
      // offered to this session.
      this.session = null;
      this.current = 'idle';
    }
    for (const settle of [...this.unanswered]) {
      settle(this.unknownOutcome('closed the connection before answering the message'));
    }
    if (!current) {
      return;
    }
    const failure: BindFailure = {
      ok: false,
      permanent: false,
      reason: `${this.sessionName ? `S${this.sessionName.slice(1)}` : 'The session'} to the SMSC at ${this.where} dropped.`,
    };
    this.failedBefore = true;
    this.retryLater(failure.reason);
    this.context.settled(failure);
  }

  private retryLater(reason: string): void {
    if (!this.context.rebinds(this)) {
      this.current = 'idle';
      return;
    }
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, this.context.timings.retryMaxMs);
    this.current = 'waiting';
    this.retryAt = Date.now() + delay;
    this.logger.warn(
      `${reason} Binding ${this.sessionName ? `${this.sessionName} ` : ''}again in ${formatDuration(delay)}.`,
    );
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.attempt();
    }, delay);
  }
}
