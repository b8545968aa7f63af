import { Injectable, Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
import { randomBytes } from 'node:crypto';
import { OutboundPolicy } from '../../common/net/outbound-policy';
import { AppConfig } from '../../config/configuration';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { measureSms } from '../../common/text/gsm';
import { API_DATETIME_FORMAT, parseApiDatetime } from '../../common/time/datetime';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  FieldRefusal,
  IncomingSms,
  OutgoingSms,
  PhoneStatus,
  RefusalCause,
  SendResult,
  StatusReport,
  dlrTypeStatus,
  field,
  secretField,
  missingRequiredField,
  problemText,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  ProviderHttp,
  ProviderReply,
  httpUrl,
  isAmbiguousStatus,
  isTransientStatus,
  statusRefusalCause,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';
import { excerpt } from '../../common/net/http-answers';

const PROVIDER = 'Kannel';

/**
 * The sum of the final delivery report types (dlrTypeStatus), the dlr-mask asking for these
 * only: 4 (queued on the SMSC) and 8 (delivered to the SMSC) would say nothing new.
 */
const DLR_MASK = String(1 + 2 + 16);

/**
 * A Kannel smsbox, through its sendsms HTTP interface.
 *
 * Inbound messages come from an `sms-service` group of the smsbox, either as a POST with
 * `post-url = "<smsgw>/callback/reception/kannel/<id_phone>/?api_key=<key>"` and
 * `send-sender = true` (without it Kannel leaves out X-Kannel-From, the origin), or as a GET
 * with `get-url = "<same URL>&from=%p&text=%a&time=%t"`. Either way set `omit-empty = true`:
 * Kannel sends the answer's body back to the sender, and smsgw answers with none.
 */
@Injectable()
export class KannelAdapter implements Adapter {
  private readonly logger = new Logger(KannelAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'kannel',
    alias: 'adapters\\KannelAdapter',
    callbackId: 'kannel_adapter',
    name: 'Kannel',
    description: "Sends through a Kannel smsbox's sendsms HTTP interface.",
    fields: [
      field(
        'kannel_sendsms_url',
        'URL of the sendsms interface, e.g. http://smsbox.example.org:13013/cgi-bin/sendsms.',
        true,
      ),
      field('username', 'sendsms user name.', true),
      secretField('password', 'sendsms password.', true),
      field('from', 'Sender number or name.', true),
      field('smsc', 'SMSC id to route through.', false),
      field('dlr_url', 'Delivery report URL.', false),
    ],
    hideData: true,
  };
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

  constructor(
    private readonly config: AppConfig,
    private readonly outbound: OutboundPolicy,
  ) {}

  /**
   * Kannel has no credentials check of its own: a sendsms call without a receiver is refused
   * with 403 when the credentials are wrong and with another 4xx when they are right.
   */
  async test(data: AdapterData): Promise<string | FieldRefusal | null> {
    const sendsms = this.sendsmsUrl(data);
    if (typeof sendsms === 'string') {
      return sendsms;
    }
    const reply = await this.request(sendsms);
    if (!reply.ok) {
      return reply.refusal
        ? { field: 'kannel_sendsms_url', reason: reply.refusal.message }
        : reply.reason;
    }
    const refusal = refusedData(reply.status, sendsms);
    if (refusal) {
      return refusal;
    }
    if (reply.status >= 500) {
      return unexpectedStatus(PROVIDER, reply.status);
    }
    return null;
  }

  /** Kannel reports no account state: a smsbox that passes the test can send. */
  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem = await this.test(data);
    if (problem) {
      this.logger.warn(`Kannel status check: ${problemText(problem)}`);
      return 'unavailable';
    }
    return 'available';
  }

  /**
   * One sendsms GET. Kannel answers no id, so smsgw makes the uid and puts it in the dlr-url,
   * where Kannel's delivery report brings it back.
   */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const sendsms = this.sendsmsUrl(data);
    if (typeof sendsms === 'string') {
      return { outcome: 'permanent', reason: sendsms, cause: 'phone' };
    }
    const uid = randomBytes(16).toString('hex');
    const params = sendsms.searchParams;
    params.set('from', data.from);
    params.set('to', sms.destination);
    params.set('text', sms.text);
    if (data.smsc) {
      params.set('smsc', data.smsc);
    }
    if (measureSms(sms.text).encoding !== 'GSM-7') {
      // UCS-2, from the UTF-8 text: Kannel would read a coding=2 text as UTF-16BE otherwise.
      params.set('coding', '2');
      params.set('charset', 'UTF-8');
    }
    if (sms.flash) {
      params.set('mclass', '0');
    }
    if (sms.validitySeconds !== null) {
      // Whole minutes; under one left, one: 0 would be no validity at all.
      params.set('validity', String(Math.max(1, Math.floor(sms.validitySeconds / 60))));
    }
    // The phone's own receipt URL unless the user gave one (RaspiSMS's field, kept working).
    const receipts = data.dlr_url || sms.callbackUrls?.status;
    if (receipts) {
      params.set('dlr-mask', DLR_MASK);
      params.set('dlr-url', dlrUrl(receipts, uid));
    }
    const reply = await this.request(sendsms);
    if (!reply.ok) {
      return unexpectedSendReply(PROVIDER, reply);
    }
    // 202 with "0: Accepted for delivery", or "3: Queued for later delivery" while the SMSC is away.
    if (reply.status === 202) {
      return { outcome: 'sent', uid };
    }
    const refusal = refusedData(reply.status, sendsms);
    if (refusal) {
      return { outcome: 'permanent', reason: refusal, cause: 'phone' };
    }
    // A 502 or 504 comes from a proxy in front of Kannel, which may have passed the request on.
    if (
      reply.status >= 400 &&
      !isTransientStatus(reply.status) &&
      !isAmbiguousStatus(reply.status)
    ) {
      const said = excerpt(reply.body);
      return {
        outcome: 'permanent',
        reason: `Kannel refused the message (HTTP ${reply.status}${said ? `: ${said}` : ''}): check the adapter data and the destination.`,
        cause: kannelRefusalCause(reply.status, said),
      };
    }
    return unexpectedSendReply(PROVIDER, reply);
  }

  /** A delivery report: the dlr-url's `sms_uid` and Kannel's `type` (dlrTypeStatus). */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const uid = request.query.sms_uid;
    if (!uid) {
      return null;
    }
    return { uid, status: dlrTypeStatus(request.query.type) };
  }

  /**
   * An inbound message from the sms-service (see the class comment): a POST carries the text
   * as its body, the origin in X-Kannel-From and the UTC time in X-Kannel-Time; a GET carries
   * `from`, `text` and `time`. X-Kannel-To is the receiving number, never the origin (RaspiSMS
   * took it for one, bug #224).
   */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const post = request.method.toUpperCase() === 'POST';
    const origin = post ? request.headers['x-kannel-from'] : request.query.from;
    const text = post ? request.rawBody : request.query.text;
    if (!origin?.trim() || text === undefined) {
      return null;
    }
    return {
      origin: e164(origin.trim()),
      text,
      at: kannelTime(post ? request.headers['x-kannel-time'] : request.query.time),
    };
  }

  /**
   * The sendsms URL with the credentials, or why the data cannot make one. The URL keeps the
   * query it already has (a fixed smsc, say).
   */
  private sendsmsUrl(data: AdapterData): URL | string {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const sendsms = httpUrl(data.kannel_sendsms_url);
    // fetch refuses a URL with user info; Kannel takes the credentials as parameters anyway.
    if (!sendsms || sendsms.username || sendsms.password) {
      return 'kannel_sendsms_url must be an http(s) URL such as http://smsbox.example.org:13013/cgi-bin/sendsms, without credentials in it.';
    }
    if (data.dlr_url && !httpUrl(data.dlr_url)) {
      return 'dlr_url must be an http(s) URL.';
    }
    sendsms.searchParams.set('username', data.username);
    sendsms.searchParams.set('password', data.password);
    return sendsms;
  }

  /** The URL is the user's: it goes through the outbound policy. */
  private request(sendsms: URL): Promise<ProviderReply> {
    const location = sendsmsLocation(sendsms);
    const { timeoutMs } = this.config.providers;
    return new ProviderHttp(PROVIDER, location, timeoutMs, this.outbound).request(sendsms);
  }
}

/** The sendsms URL without its query, which holds the password, for sentences and logs. */
function sendsmsLocation(sendsms: URL): string {
  return `${sendsms.origin}${sendsms.pathname}`;
}

/** Why Kannel refused the adapter data itself (credentials, URL), or null. */
function refusedData(status: number, sendsms: URL): string | null {
  if (status >= 300 && status < 400) {
    return `${sendsmsLocation(sendsms)} answered HTTP ${status}, a redirect, which smsgw does not follow: give the final URL of the sendsms interface as kannel_sendsms_url.`;
  }
  if (status === 403) {
    return 'Kannel refused the credentials (HTTP 403): check username and password.';
  }
  if (status === 404) {
    return `Kannel has no sendsms interface at ${sendsmsLocation(sendsms)} (HTTP 404): check kannel_sendsms_url.`;
  }
  return null;
}

/**
 * Whose a sendsms refusal is (docs/adapters.md#refusals), from the answers smsbox documents: a
 * 500 "Sending failed." (the bearerbox did not take the message), a 400 naming the sender
 * ("Sender missing and no global set") and HTTP 401, 402 and 403 are the phone's; any other
 * ("Number(s) has/have been denied by white- and/or black-lists.", "Missing receiver number",
 * a field misformed) is the recipient's or the message's.
 */
function kannelRefusalCause(status: number, said: string): RefusalCause {
  if (status === 500 || (status === 400 && /^sender\b/i.test(said))) {
    return 'phone';
  }
  return statusRefusalCause(status);
}

/**
 * `base` with `sms_uid` and a literal `type=%d`, which Kannel replaces with the report's type
 * (URLSearchParams would escape the `%`). Any `type` or `sms_uid` it had is dropped.
 */
function dlrUrl(base: string, uid: string): string {
  const url = new URL(base);
  url.hash = '';
  url.searchParams.delete('type');
  url.searchParams.set('sms_uid', uid);
  return `${url.href}&type=%d`;
}

/** E.164 when it parses, also from Kannel's `00` international prefix; else as given. */
function e164(origin: string): string {
  return normalizePhoneNumber(origin) ?? normalizePhoneNumber(origin.replace(/^00/, '+')) ?? origin;
}

/**
 * Kannel's UTC time of an inbound message as a UTC `YYYY-MM-DD HH:MM:SS`: X-Kannel-Time and
 * `%t` give `YYYY-MM-DD HH:MM:SS` (older Kannels `YYYY-MM-DD HH:MM`), `%T` Unix seconds. Null,
 * meaning now, when it is none of these.
 */
function kannelTime(value: string | undefined): string | null {
  const time = value?.trim() ?? '';
  if (/^\d+$/.test(time)) {
    const date = DateTime.fromSeconds(Number(time), { zone: 'utc' });
    return date.isValid ? date.toFormat(API_DATETIME_FORMAT) : null;
  }
  return parseApiDatetime(time.length === 16 ? `${time}:00` : time, 'utc');
}
