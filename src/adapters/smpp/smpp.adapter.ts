import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { OutboundPolicy } from '../../common/net/outbound-policy';
import { AppConfig } from '../../config/configuration';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  FieldRefusal,
  InboundSink,
  ListenedPhone,
  OutgoingSms,
  PhoneStatus,
  SendResult,
  field,
  secretField,
  missingRequiredField,
  problemText,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  destinationDigits,
  encodedMessage,
  relativeTime,
  SourceAddress,
  sourceAddress,
} from './smpp.codec';
import { SubmitSm } from './smpp.submit';
import { SmppTimings } from './smpp.bind';
import { SmppLink, SmppLinkShape, SmppListener } from './smpp.link';

/** SMPP 3.4's C-Octet String sizes, less their terminating NUL. */
const MAX_LENGTHS: Readonly<Record<string, number>> = {
  system_id: 15,
  password: 8,
  system_type: 12,
  source_addr: 20,
};

/**
 * The optional counts of the adapter data: their range and their value when not given. Ten
 * messages unanswered per session is Kannel's default `max-pending-submits`.
 */
const COUNTS: Readonly<Record<string, { min: number; max: number; absent: number }>> = {
  max_pending_submits: { min: 1, max: 1000, absent: 10 },
  binds: { min: 1, max: 16, absent: 1 },
};

/** What the sends through one adapter data object share (`SmppAdapter.prepared`). */
interface PreparedData {
  /** Why the data cannot send, or null. */
  invalid: string | null;
  /** Its link's key in `links`. */
  key: string;
  source: SourceAddress;
}

/** An SMSC, through one or more SMPP 3.4 transceiver sessions. */
@Injectable()
export class SmppAdapter implements Adapter, OnApplicationShutdown {
  private readonly logger = new Logger(SmppAdapter.name);
  /** The open sessions, one link per connection data: sends and listeners of a phone share it. */
  private readonly links = new Map<string, SmppLink>();
  private readonly preparedData = new WeakMap<AdapterData, PreparedData>();
  protected readonly timings: SmppTimings = {
    enquireLinkMs: 30_000,
    retryFirstMs: 1_000,
    retryMaxMs: 60_000,
  };

  readonly descriptor: AdapterDescriptor = {
    id: 'smpp',
    alias: null,
    name: 'SMPP',
    description: 'Sends through an SMPP 3.4 connection to an SMSC.',
    fields: [
      field('host', 'SMSC host name or address.', true),
      field('port', 'SMSC port, usually 2775.', true),
      field('system_id', 'SMPP system_id (login).', true),
      secretField('password', 'SMPP password.', true),
      field('system_type', 'SMPP system_type, when the SMSC asks for one.', false),
      field('source_addr', 'Source address (number or name) of sent messages.', true),
      field(
        'max_pending_submits',
        'Messages sent and not yet answered by the SMSC, per session, 1 to 1000 (default 10); further messages wait for an answer.',
        false,
      ),
      field(
        'binds',
        'Transceiver sessions opened to the SMSC with these credentials, 1 to 16 (default 1); messages are spread over them.',
        false,
      ),
    ],
    hideData: true,
  };
  /** Flash messages go as GSM message class 0. */
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false, listensPerProcess: true };

  constructor(
    private readonly config: AppConfig,
    private readonly outbound: OutboundPolicy,
  ) {}

  async test(data: AdapterData): Promise<string | FieldRefusal | null> {
    return this.invalid(data) ?? (await this.bind(data));
  }

  /** A phone whose session is bound is available without another bind, which SMSCs may cap. */
  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const invalid = this.invalid(data);
    if (!invalid && this.links.get(this.prepared(data).key)?.boundWith(data.password)) {
      return 'available';
    }
    const problem = invalid ?? (await this.bind(data));
    if (problem) {
      this.logger.warn(`SMPP status check: ${problemText(problem)}`);
      return 'unavailable';
    }
    return 'available';
  }

  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const invalid = this.invalid(data);
    if (invalid) {
      return { outcome: 'permanent', reason: invalid, cause: 'phone' };
    }
    const destination = destinationDigits(sms.destination);
    if (!destination) {
      return {
        outcome: 'permanent',
        reason: `The destination ${sms.destination} is not an international phone number.`,
        cause: 'recipient',
      };
    }
    return this.link(data).submit(
      new SubmitSm(
        this.prepared(data).source,
        destination,
        encodedMessage(sms.text, sms.flash),
        sms.validitySeconds === null ? null : relativeTime(sms.validitySeconds),
      ),
    );
  }

  /**
   * Binds the phone's sessions (shared with its sends) and reports what arrives on any of them;
   * stopping the last listener of a link unbinds them, and a later send binds new ones.
   */
  listen(phone: ListenedPhone, sink: InboundSink): () => Promise<void> {
    const invalid = this.invalid(phone.data);
    if (invalid) {
      this.logger.warn(`Phone ${phone.id} cannot receive over SMPP: ${invalid}`);
      return () => Promise.resolve();
    }
    const key = this.prepared(phone.data).key;
    const link = this.link(phone.data);
    const listener: SmppListener = { phone, sink };
    link.listen(listener);
    let stopped = false;
    return async () => {
      if (stopped) {
        return;
      }
      stopped = true;
      if (link.unlisten(listener) > 0) {
        return;
      }
      if (this.links.get(key) === link) {
        this.links.delete(key);
      }
      await link.close();
    };
  }

  async onApplicationShutdown(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((link) => link.close()));
  }

  /**
   * What every send through this adapter data needs from it, worked out once: the sends of a
   * batch share one data object per phone, and a campaign sends thousands through it.
   */
  private prepared(data: AdapterData): PreparedData {
    let prepared = this.preparedData.get(data);
    if (!prepared) {
      prepared = {
        invalid: this.check(data),
        key: linkKey(data),
        source: sourceAddress(data.source_addr ?? ''),
      };
      this.preparedData.set(data, prepared);
    }
    return prepared;
  }

  private invalid(data: AdapterData): string | null {
    return this.prepared(data).invalid;
  }

  private check(data: AdapterData): string | null {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const port = String(data.port);
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      return 'port must be an integer from 1 to 65535.';
    }
    for (const [name, max] of Object.entries(MAX_LENGTHS)) {
      if ((data[name] ?? '').length > max) {
        return `${name} must be at most ${max} characters (SMPP 3.4).`;
      }
    }
    for (const [name, { min, max }] of Object.entries(COUNTS)) {
      if (Number.isNaN(count(data, name))) {
        return `${name} must be an integer from ${min} to ${max}.`;
      }
    }
    return null;
  }

  private link(data: AdapterData): SmppLink {
    const { key } = this.prepared(data);
    const existing = this.links.get(key);
    if (existing) {
      existing.adopt(data);
      return existing;
    }
    const link = this.newLink(data, {
      binds: count(data, 'binds'),
      maxPendingSubmits: count(data, 'max_pending_submits'),
    });
    this.links.set(key, link);
    return link;
  }

  /**
   * Null when the SMSC accepts a transceiver bind with the credentials, else why not, through
   * a session of its own that is unbound and closed at once.
   */
  private async bind(data: AdapterData): Promise<string | FieldRefusal | null> {
    const link = this.newLink(data, { binds: 1, maxPendingSubmits: 1 });
    const outcome = await link.bound();
    await link.close();
    if (outcome.ok) {
      return null;
    }
    return outcome.refusal ? { field: 'host', reason: outcome.refusal.message } : outcome.reason;
  }

  /** The host is the user's: the link connects only where the outbound policy allows. */
  private newLink(data: AdapterData, shape: SmppLinkShape): SmppLink {
    return new SmppLink(data, this.config.providers.timeoutMs, this.timings, this.outbound, shape);
  }
}

/** An optional count of the data, its default when blank, NaN when it is not a valid one. */
function count(data: AdapterData, name: string): number {
  const { min, max, absent } = COUNTS[name];
  const value = data[name] ?? '';
  if (value.trim() === '') {
    return absent;
  }
  const number = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  return number >= min && number <= max ? number : NaN;
}

/**
 * What makes two phones' sessions the same. The password is left out so that a corrected one
 * is taken by the sessions for their next bind instead of opening more. So are `binds` and
 * `max_pending_submits`: phones sharing sessions share them as the first one opened them,
 * since the SMSC grants its binds and windows per account, not per phone.
 */
function linkKey(data: AdapterData): string {
  return JSON.stringify([
    data.host,
    data.port,
    data.system_id,
    data.system_type ?? '',
    data.source_addr,
  ]);
}
