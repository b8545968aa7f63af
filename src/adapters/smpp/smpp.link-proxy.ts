import { Logger } from '@nestjs/common';
import { errors } from 'smpp';
import { OutboundPolicy, OutboundRefusal } from '../../common/net/outbound-policy';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import type { AdapterData, InboundSink, ListenedPhone, SendResult } from '../adapter';
import type { BindFailure, BindOutcome, SmppTimings } from './smpp.bind';
import type { Delivery, InboundMessage } from './smpp.codec';
import type { ConnectTarget, SmppLinkShape } from './smpp.messages';
import { SmppThread, ThreadLink } from './smpp.thread';

export interface SmppListener {
  phone: ListenedPhone;
  sink: InboundSink;
}

/** What a link's sessions are opened with, besides the phone's data. */
export interface SmppLinkSettings {
  timeoutMs: number;
  timings: SmppTimings;
  shape: SmppLinkShape;
}

/**
 * A link to an SMSC (smpp.link.ts) as the main thread sees it: the link itself, its sessions and
 * its queue live in the SMPP thread, its listeners here. It opens the link in the thread when
 * first used, and again after the thread stopped; a link someone listens to is opened again at
 * once (after `retryFirstMs`), so that receiving resumes.
 */
export class SmppLinkProxy implements ThreadLink {
  private readonly logger = new Logger('SmppLink');
  private remote: number | null = null;
  private closed = false;
  private readonly listeners = new Set<SmppListener>();
  private readonly target: ConnectTarget;

  constructor(
    private readonly thread: SmppThread,
    private data: AdapterData,
    outbound: OutboundPolicy,
    private readonly settings: SmppLinkSettings,
  ) {
    // An address is judged once: the policy's settings do not change. A name is resolved and
    // checked by the policy at each connection (`SmppThread.lookup`).
    const target = outbound.target(data.host);
    this.target =
      target instanceof OutboundRefusal
        ? { refusal: { host: target.host, address: target.address, range: target.range } }
        : { host: target.host };
  }

  get where(): string {
    return `${this.data.host}:${this.data.port}`;
  }

  /**
   * Takes the phone's newest data (a corrected password) for the next binds. Of what binds
   * read, only the password is left out of the link's key (`linkKey`): the thread is told when
   * it changed, not at each send.
   */
  adopt(data: AdapterData): void {
    const changed = data.password !== this.data.password;
    this.data = data;
    if (changed && this.remote !== null) {
      this.thread.post({ type: 'adopt', link: this.remote, data });
    }
  }

  /** Whether a session is bound with this password. */
  async boundWith(password: string): Promise<boolean> {
    const link = this.remote;
    if (link === null) {
      return false;
    }
    return this.thread.request(
      (request) => ({ type: 'boundWith', request, link, password }),
      false,
    );
  }

  /** Whether a session is bound, binding any that is not, or why there is none in time. */
  async bound(): Promise<BindOutcome> {
    const link = this.opened();
    if (link === null) {
      return this.closedFailure();
    }
    const outcome = await this.thread.request<BindOutcome | null>(
      (request) => ({ type: 'bound', request, link }),
      this.threadStopped(),
    );
    return outcome ?? this.closedFailure();
  }

  /** Submits one message (see `SmppLink.submit`). */
  submit(
    destination: string,
    text: string,
    flash: boolean,
    validitySeconds: number | null,
  ): Promise<SendResult> {
    const link = this.opened();
    if (link === null) {
      return Promise.resolve({
        outcome: 'transient',
        reason: `smsgw closed its connection to the SMSC at ${this.where} before the message was handed to it.`,
      });
    }
    return this.thread.submit(link, this, destination, text, flash, validitySeconds);
  }

  /** Reports what the SMSC delivers to `listener` from now on, binding if needed. */
  listen(listener: SmppListener): void {
    this.listeners.add(listener);
    const link = this.opened();
    if (link !== null) {
      this.thread.post({ type: 'listening', link, on: true });
    }
  }

  /** Stops reporting to `listener`; how many listeners remain. */
  unlisten(listener: SmppListener): number {
    this.listeners.delete(listener);
    if (this.listeners.size === 0 && this.remote !== null) {
      this.thread.post({ type: 'listening', link: this.remote, on: false });
    }
    return this.listeners.size;
  }

  /**
   * Unbinds and closes the sessions for good: a send still waiting for a bind or for room
   * fails, never sent; one written and unanswered fails as unknown.
   */
  async close(): Promise<void> {
    this.closed = true;
    const link = this.remote;
    this.remote = null;
    if (link !== null) {
      await this.thread.close(link);
    }
  }

  lost(): void {
    this.remote = null;
    if (this.listeners.size > 0 && !this.closed) {
      setTimeout(() => {
        if (this.listeners.size > 0) {
          this.opened();
        }
      }, this.settings.timings.retryFirstMs).unref();
    }
  }

  /**
   * Reports one deliver_sm to the listeners; the status the thread answers it with, once they
   * took it. When reporting fails, ESME_RX_T_APPN asks the SMSC to retry later.
   */
  async deliver(delivery: Exclude<Delivery, { kind: 'other' }>): Promise<number> {
    const listeners = [...this.listeners];
    if (delivery.kind === 'message') {
      const sms = { origin: origin(delivery.message), text: delivery.message.text, at: null };
      // A user's message is never dropped: the SMSC keeps it and delivers it again later.
      return listeners.length === 0
        ? errors.ESME_RX_T_APPN
        : this.report(listeners, 'message', ({ phone, sink }) => sink.received(phone, sms));
    }
    const report = delivery.report;
    if (!report) {
      this.logger.warn(`The SMSC at ${this.where} sent a delivery receipt without an id.`);
      return errors.ESME_ROK;
    }
    if (listeners.length === 0) {
      // Refusing it would have the SMSC retry it on this session, which only sends use
      // (the worker listens to every SMPP phone): a receipt nobody listens for is dropped.
      this.logger.warn(`Dropped the receipt of ${report.uid}: no phone listens at ${this.where}.`);
      return errors.ESME_ROK;
    }
    return this.report(listeners, 'receipt', ({ phone, sink }) => sink.status(phone, report));
  }

  /** The link's number in the thread, opening it there first; null once closed. */
  private opened(): number | null {
    if (this.closed) {
      return null;
    }
    this.remote ??= this.thread.open(this, {
      data: this.data,
      timeoutMs: this.settings.timeoutMs,
      timings: this.settings.timings,
      shape: this.settings.shape,
      target: this.target,
      listening: this.listeners.size > 0,
    });
    return this.remote;
  }

  private closedFailure(): BindFailure {
    return {
      ok: false,
      permanent: false,
      reason: `smsgw closed its session to the SMSC at ${this.where} before it was bound.`,
    };
  }

  private threadStopped(): BindFailure {
    return {
      ok: false,
      permanent: false,
      reason: `smsgw's SMPP thread stopped before its session to the SMSC at ${this.where} was bound.`,
    };
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

/** The source as E.164 when it parses (an international TON lacks the '+'), else as given. */
function origin({ source, international }: InboundMessage): string {
  const plus = international && !source.startsWith('+');
  return normalizePhoneNumber(plus ? `+${source}` : source) ?? source;
}
