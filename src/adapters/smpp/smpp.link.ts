import { Logger } from '@nestjs/common';
import { PDU, Session, errors } from 'smpp';
import { OutboundPolicy } from '../../common/net/outbound-policy';
import { AdapterData, InboundSink, ListenedPhone, SendResult } from '../adapter';
import { formatDuration } from '../../common/net/http-answers';
import { BindContext, BindFailure, BindOutcome, SmppBind, SmppTimings } from './smpp.bind';
import { readDeliverSm } from './smpp.codec';
import type { SubmitSm } from './smpp.submit';

export interface SmppListener {
  phone: ListenedPhone;
  sink: InboundSink;
}

/** How many sessions a link opens, and how many messages each may have unanswered at once. */
export interface SmppLinkShape {
  binds: number;
  maxPendingSubmits: number;
}

/** A send whose submit_sm is not written yet: it waits for a bound session with room. */
interface QueuedSubmit {
  pdu: SubmitSm;
  timer: NodeJS.Timeout;
  resolve: (result: SendResult) => void;
}

/** Something waiting for a bound session, or for the reason there will be none in time. */
interface BindWaiter {
  resolve(outcome: BindOutcome): void;
}

/**
 * The transceiver sessions to an SMSC, shared by the sends and the listeners of every phone
 * with the same connection data: `binds` of them with the same credentials, bound on demand
 * and, while someone listens (or another of them is bound), bound again after they drop.
 * Each session has at most `maxPendingSubmits` submit_sm written and unanswered, as SMSCs
 * throttle or refuse beyond the window they grant; the sends beyond wait in one queue, in
 * order, and each goes to the bound session with the fewest unanswered as soon as one has
 * room. A send only ever waits for a bind already under way or due within its timeout:
 * during a long back-off it fails at once with the last reason.
 */
export class SmppLink {
  private readonly logger = new Logger(SmppLink.name);
  private readonly binds: SmppBind[];
  private closed = false;
  private lastFailure: BindFailure | null = null;
  private readonly waiters = new Set<BindWaiter>();
  private queue: QueuedSubmit[] = [];
  private pumping = false;
  /** Where the search for a session with room starts: sends in turn spread over all of them. */
  private nextBind = 0;
  private readonly listeners = new Set<SmppListener>();

  constructor(
    private data: AdapterData,
    private readonly timeoutMs: number,
    timings: SmppTimings,
    outbound: OutboundPolicy,
    private readonly shape: SmppLinkShape,
  ) {
    const context: BindContext = {
      data: () => this.data,
      timeoutMs,
      timings,
      outbound,
      settled: (outcome) => this.settled(outcome),
      freed: () => this.pump(),
      rebinds: (bind) => this.rebinds(bind),
      deliver: (session, pdu) => this.deliver(session, pdu),
    };
    this.binds = Array.from(
      { length: shape.binds },
      (_, index) => new SmppBind(context, { index: index + 1, of: shape.binds }),
    );
  }

  /** Takes the phone's newest data (a corrected password) for the next binds. */
  adopt(data: AdapterData): void {
    this.data = data;
  }

  /** Whether a session is bound with this password. */
  boundWith(password: string): boolean {
    return this.binds.some((bind) => bind.boundWith(password));
  }

  /** Whether a session is bound, binding any that is not, or why there is none in time. */
  bound(): Promise<BindOutcome> {
    if (this.closed) {
      return Promise.resolve(this.closedFailure());
    }
    // Idle sessions bind for the sends too, one bound already or not: those of a phone that
    // nobody listens to are not bound again on their own when all dropped together.
    this.startBinds();
    if (this.anyBound()) {
      return Promise.resolve({ ok: true });
    }
    const hopeless = this.hopeless(Date.now() + this.timeoutMs);
    if (hopeless) {
      return Promise.resolve(hopeless);
    }
    return new Promise((resolve) => {
      const waiter: BindWaiter = {
        resolve: (outcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
      };
      const timer = setTimeout(
        () =>
          waiter.resolve({
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
   * Submits one message. Failing before the submit_sm is written (no session bound in time,
   * or no room in their windows in time) is transient: the SMSC never saw the message. Once
   * written, see `SmppBind.submit`.
   */
  submit(pdu: SubmitSm): Promise<SendResult> {
    if (!this.closed && this.queue.length === 0) {
      // Written at once when a bound session has room: no wait, so no timer and no promise of
      // its own (a campaign writes thousands a second).
      this.startBinds();
      const answered = this.anyBound() ? this.roomiest()?.submit(pdu) : null;
      if (answered) {
        return answered;
      }
    }
    return this.submitWhenRoom(pdu);
  }

  /** `submit` once a session is bound and has room, or why not. */
  private async submitWhenRoom(pdu: SubmitSm): Promise<SendResult> {
    const bound = await this.bound();
    if (!bound.ok) {
      return failed(bound);
    }
    if (this.closed) {
      return this.closedBeforeWritten();
    }
    return new Promise((resolve) => {
      const queued: QueuedSubmit = {
        pdu,
        resolve,
        timer: setTimeout(() => {
          this.queue = this.queue.filter((other) => other !== queued);
          resolve(this.anyBound() ? this.noRoom() : failed(this.unbound()));
        }, this.timeoutMs),
      };
      this.queue.push(queued);
      this.pump();
    });
  }

  /** Reports what the SMSC delivers to `listener` from now on, binding if needed. */
  listen(listener: SmppListener): void {
    this.listeners.add(listener);
    if (!this.closed) {
      this.startBinds();
    }
  }

  /** Stops reporting to `listener`; how many listeners remain. */
  unlisten(listener: SmppListener): number {
    this.listeners.delete(listener);
    return this.listeners.size;
  }

  /**
   * Unbinds and closes the sessions for good: a send still waiting for a bind or for room
   * fails, never sent; one written and unanswered fails as unknown.
   */
  async close(): Promise<void> {
    if (this.closed) {
      return;
    }
    this.closed = true;
    for (const waiter of [...this.waiters]) {
      waiter.resolve(this.closedFailure());
    }
    this.dropQueue(this.closedBeforeWritten());
    await Promise.all(this.binds.map((bind) => bind.close()));
  }

  private get where(): string {
    return `${this.data.host}:${this.data.port}`;
  }

  private anyBound(): boolean {
    return this.binds.some((bind) => bind.state === 'bound');
  }

  private closedFailure(): BindFailure {
    return {
      ok: false,
      permanent: false,
      reason: `smsgw closed its session to the SMSC at ${this.where} before it was bound.`,
    };
  }

  /** Why no session is bound: the last failure, or that none could bind in time. */
  private unbound(): BindFailure {
    return (
      this.lastFailure ?? {
        ok: false,
        permanent: false,
        reason: `Could not bind to the SMSC at ${this.where} within ${formatDuration(this.timeoutMs)}.`,
      }
    );
  }

  private closedBeforeWritten(): SendResult {
    return {
      outcome: 'transient',
      reason: `smsgw closed its connection to the SMSC at ${this.where} before the message was handed to it.`,
    };
  }

  private noRoom(): SendResult {
    const unanswered = this.binds.reduce((sum, bind) => sum + bind.inFlight, 0);
    return {
      outcome: 'transient',
      reason:
        `The SMSC at ${this.where} left no room for the message within ${formatDuration(this.timeoutMs)}: ` +
        `${unanswered} messages were waiting for its answer (max_pending_submits is ${this.shape.maxPendingSubmits} per session).`,
    };
  }

  private startBinds(): void {
    for (const bind of this.binds) {
      bind.start();
    }
  }

  /**
   * The last failure when no session is bound and none may be before `deadline` (each is idle
   * or backing off past it), else null.
   */
  private hopeless(deadline: number): BindFailure | null {
    const hopeful = this.binds.some(
      (bind) =>
        bind.state === 'bound' ||
        bind.state === 'binding' ||
        (bind.state === 'waiting' && bind.retryAt <= deadline),
    );
    return hopeful ? null : this.unbound();
  }

  /** A session binds again on its own while someone listens or another session is up. */
  private rebinds(bind: SmppBind): boolean {
    return (
      this.listeners.size > 0 ||
      this.binds.some(
        (other) => other !== bind && (other.state === 'bound' || other.state === 'binding'),
      )
    );
  }

  /**
   * A session bound, failed to or dropped. A failure fails what waits for a session only when
   * no other session is bound or binding: those still may take it.
   */
  private settled(outcome: BindOutcome): void {
    if (outcome.ok) {
      this.lastFailure = null;
      for (const waiter of [...this.waiters]) {
        waiter.resolve(outcome);
      }
      this.pump();
      return;
    }
    this.lastFailure = outcome;
    if (this.binds.some((other) => other.state === 'bound' || other.state === 'binding')) {
      return;
    }
    for (const waiter of [...this.waiters]) {
      waiter.resolve(outcome);
    }
    this.dropQueue(failed(outcome));
  }

  /** Fails every send waiting for room: none was written. */
  private dropQueue(result: SendResult): void {
    for (const queued of this.queue.splice(0)) {
      clearTimeout(queued.timer);
      queued.resolve(result);
    }
  }

  /** Writes the waiting sends, in order, while a bound session has room in its window. */
  private pump(): void {
    if (this.pumping || this.closed) {
      return;
    }
    this.pumping = true;
    try {
      for (let bind = this.roomiest(); bind && this.queue.length > 0; bind = this.roomiest()) {
        const queued = this.queue[0];
        const answered = bind.submit(queued.pdu);
        if (answered) {
          this.queue.shift();
          clearTimeout(queued.timer);
          void answered.then(queued.resolve);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** The bound session with the fewest unanswered submits and room for one more, if any. */
  private roomiest(): SmppBind | null {
    let best: SmppBind | null = null;
    for (let step = 0; step < this.binds.length; step++) {
      const bind = this.binds[(this.nextBind + step) % this.binds.length];
      if (
        bind.state === 'bound' &&
        bind.inFlight < this.shape.maxPendingSubmits &&
        (!best || bind.inFlight < best.inFlight)
      ) {
        best = bind;
      }
    }
    if (best) {
      this.nextBind = (this.binds.indexOf(best) + 1) % this.binds.length;
    }
    return best;
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

/**
 * A bind failure as the outcome of a send that was never written. A permanent one (credentials
 * refused, the SMSC's address refused by the outbound policy) is the phone's.
 */
function failed(failure: BindFailure): SendResult {
  return failure.permanent
    ? { outcome: 'permanent', reason: failure.reason, cause: 'phone' }
    : { outcome: 'transient', reason: failure.reason };
}
