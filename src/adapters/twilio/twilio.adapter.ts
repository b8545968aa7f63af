import { Injectable, Logger } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/configuration';
import { ProviderUrlSetting } from '../../config/provider-settings';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  callbackParam,
  fieldsStatusReport,
  IncomingSms,
  OutgoingSms,
  PhoneStatus,
  ReportedStatus,
  SendResult,
  StatusReport,
  field,
  secretField,
  missingRequiredField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { within } from '../validity';
import {
  ProviderHttp,
  isTransientStatus,
  parseJson,
  sendAnswer,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';
import { excerpt } from '../../common/net/http-answers';

const PROVIDER = 'Twilio';

/** The longest ValidityPeriod Twilio takes, in seconds (10 hours); the least is 1. */
const TWILIO_MAX_VALIDITY_S = 36_000;

/** Where Twilio's REST API is: tests point it at a local fake. */
export const TWILIO_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'TWILIO_API_URL',
  default: 'https://api.twilio.com',
};

/** Twilio's error code for too many requests, which it may give with another HTTP status. */
const TOO_MANY_REQUESTS = 20429;
/**
 * Twilio's error codes that refuse the sending phone rather than the recipient
 * (docs/adapters.md#refusals): 20003 authentication failed, 20005 account not active, 21606 and
 * 21212 the From number cannot send / is not valid, 21659 From is not a Twilio number, 30002
 * account suspended. Every
 * other code (21211 invalid To, 21610 unsubscribed recipient, 21614 not a mobile number, ...) is
 * the recipient's.
 */
const PHONE_ERRORS: ReadonlySet<number> = new Set([20003, 20005, 21212, 21606, 21659, 30002]);

/**
 * A Message's `MessageStatus` in a status callback. `undelivered` is final in Twilio's docs
 * (the carrier refused it), so it fails the message where RaspiSMS left it unknown; `canceled`
 * is final too and nothing was sent. Statuses not listed (queued, sending, sent…) are on the way.
 */
const REPORTED_STATUSES: Readonly<Record<string, ReportedStatus>> = {
  delivered: 'delivered',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

/**
 * A Twilio virtual number, through Twilio's REST API (2010-04-01).
 *
 * Inbound messages: set the number's "A message comes in" webhook (HTTP POST) to
 * `<smsgw>/callback/reception/twilio/<id_phone>/?api_key=<key>`. Twilio signs its callbacks,
 * and smsgw ignores those whose signature the phone's auth_token does not match.
 */
@Injectable()
export class TwilioAdapter implements Adapter {
  private readonly logger = new Logger(TwilioAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'twilio',
    alias: 'adapters\\TwilioVirtualNumberAdapter',
    callbackId: 'twilio_virtual_number_adapter',
    name: 'Twilio virtual number',
    description: 'Sends through the Twilio Messages API from a Twilio number.',
    fields: [
      field('account_sid', 'Twilio account SID.', true),
      secretField('auth_token', 'Twilio auth token.', true),
      field('number', 'The Twilio phone number to send from, international format.', true, true),
      field('status_change_callback', 'URL Twilio calls with delivery statuses.', false),
    ],
    hideData: true,
    settings: [TWILIO_API_URL],
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: true };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const reply = await this.http().request(
      `${this.accountUrl(data)}/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(data.number)}`,
      { headers: this.headers(data) },
    );
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 401 || reply.status === 403) {
      return refusedCredentials(reply.status);
    }
    if (reply.status !== 200) {
      return unexpectedStatus(PROVIDER, reply.status);
    }
    const numbers = incomingNumbers(parseJson(reply.body));
    if (!numbers) {
      return 'Twilio answered without a list of phone numbers: try again later.';
    }
    if (!numbers.includes(data.number)) {
      return `The number ${data.number} is not a phone number of this Twilio account: check number.`;
    }
    return null;
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    if (missingRequiredField(this.descriptor, data)) {
      return 'unavailable';
    }
    const reply = await this.http().request(`${this.accountUrl(data)}.json`, {
      headers: this.headers(data),
    });
    if (!reply.ok) {
      this.logger.warn(`Twilio status check: ${reply.reason}`);
      return 'unavailable';
    }
    const status = accountStatus(reply.status === 200 ? parseJson(reply.body) : undefined);
    if (status !== 'active') {
      this.logger.warn(
        `Twilio status check: HTTP ${reply.status}, account status ${status ?? 'unknown'}.`,
      );
      return 'unavailable';
    }
    return 'available';
  }

  /** Creates a Message (POST …/Messages.json); its `sid` is the uid receipts will carry. */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return { outcome: 'permanent', reason: missing, cause: 'phone' };
    }
    const form = new URLSearchParams({ To: sms.destination, From: data.number });
    // Twilio requires a Body only when there is no media.
    if (sms.text || !sms.medias.length) {
      form.set('Body', sms.text);
    }
    for (const media of sms.medias) {
      form.append('MediaUrl', media.url);
    }
    // The phone's own receipt URL unless the user gave one (RaspiSMS's field, kept working).
    const callback = data.status_change_callback || sms.callbackUrls?.status;
    if (callback) {
      form.set('StatusCallback', callback);
    }
    if (sms.validitySeconds !== null) {
      form.set('ValidityPeriod', String(within(sms.validitySeconds, 1, TWILIO_MAX_VALIDITY_S)));
    }
    const replied = await this.http().request(`${this.accountUrl(data)}/Messages.json`, {
      method: 'POST',
      headers: { ...this.headers(data), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const reply = sendAnswer(PROVIDER, replied, refusedCredentials);
    if ('outcome' in reply) {
      return reply;
    }
    const answer = parseJson(reply.body);
    if (reply.status >= 200 && reply.status < 300) {
      const sid = (answer as { sid?: unknown } | undefined)?.sid;
      return typeof sid === 'string' && sid
        ? { outcome: 'sent', uid: sid }
        : {
            // It may have taken the message: sending again could deliver it twice.
            outcome: 'ambiguous',
            reason: `Twilio answered HTTP ${reply.status} without a message sid: check the message in the Twilio console before sending it again.`,
          };
    }
    const error = twilioError(answer);
    if (isTransientStatus(reply.status) || error?.code === TOO_MANY_REQUESTS) {
      return {
        outcome: 'transient',
        reason: error
          ? `Twilio could not take the message now (HTTP ${reply.status}, error ${error.code}: ${excerpt(error.message)}): try again later.`
          : unexpectedStatus(PROVIDER, reply.status),
      };
    }
    if (error) {
      return {
        outcome: 'permanent',
        reason: `Twilio refused the message (error ${error.code}): ${sentence(excerpt(error.message))}`,
        cause: PHONE_ERRORS.has(error.code) ? 'phone' : 'recipient',
      };
    }
    return unexpectedSendReply(PROVIDER, reply);
  }

  /** Twilio's status callback: `MessageSid` and `MessageStatus`, posted as a form. */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    return fieldsStatusReport(request, 'MessageSid', 'MessageStatus', REPORTED_STATUSES);
  }

  /**
   * Twilio's incoming-message webhook: `From`, `Body` and `MessageSid`. It gives no time of its
   * own, so the message is received now.
   */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const origin = callbackParam(request, 'From');
    const text = callbackParam(request, 'Body');
    if (!callbackParam(request, 'MessageSid') || !origin || text === undefined) {
      return null;
    }
    return { origin: normalizePhoneNumber(origin) ?? origin, text, at: null };
  }

  /**
   * Twilio's `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the auth token, of the URL it
   * called followed, for a POST, by every form field as name then value, sorted by name.
   * Twilio's own helpers also accept the URL with its default port added or removed, since
   * Twilio may sign either form.
   */
  verifyCallback(request: CallbackRequest, data: AdapterData): boolean {
    const signature = request.headers['x-twilio-signature'];
    if (!signature || !data.auth_token) {
      return false;
    }
    const fields = request.method.toUpperCase() === 'POST' ? request.form : {};
    const signed = Object.keys(fields)
      .sort()
      .map((name) => `${name}${fields[name]}`)
      .join('');
    const given = Buffer.from(signature);
    return urlForms(request.url).some((url) => {
      const expected = Buffer.from(
        createHmac('sha1', data.auth_token).update(`${url}${signed}`).digest('base64'),
      );
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private http(): ProviderHttp {
    const { settings, timeoutMs } = this.config.providers;
    return new ProviderHttp(PROVIDER, settings.url(TWILIO_API_URL), timeoutMs);
  }

  private accountUrl(data: AdapterData): string {
    const base = this.config.providers.settings.url(TWILIO_API_URL);
    return `${base}/2010-04-01/Accounts/${encodeURIComponent(data.account_sid)}`;
  }

  private headers(data: AdapterData): Record<string, string> {
    const credentials = Buffer.from(`${data.account_sid}:${data.auth_token}`).toString('base64');
    return { Authorization: `Basic ${credentials}`, Accept: 'application/json' };
  }
}

/** The `phone_number` of each entry of an IncomingPhoneNumbers page. */
function incomingNumbers(page: unknown): string[] | undefined {
  const list = (page as { incoming_phone_numbers?: unknown } | undefined)?.incoming_phone_numbers;
  if (!Array.isArray(list)) {
    return undefined;
  }
  return list
    .map((entry) => (entry as { phone_number?: unknown } | null)?.phone_number)
    .filter((number): number is string => typeof number === 'string');
}

/** An Account resource's `status`: active, suspended or closed. */
function accountStatus(account: unknown): string | undefined {
  const status = (account as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? status : undefined;
}

/** Twilio's error body: `{code, message, more_info, status}`. */
function twilioError(answer: unknown): { code: number; message: string } | undefined {
  const { code, message } = (answer ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'number' && typeof message === 'string' && message.trim()
    ? { code, message: message.trim() }
    : undefined;
}

function refusedCredentials(status: number): string {
  return `Twilio refused the credentials (HTTP ${status}): check account_sid and auth_token.`;
}

/** `text` ending with a full stop, to sit inside a sentence of ours. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: ':80', https: ':443' };

/**
 * `url` without and with its scheme's default port, written as given otherwise (a URL parser
 * would re-encode it and break the signature); just `url` when it names another port.
 */
function urlForms(url: string): string[] {
  const match = /^(https?):\/\/([^/?#:]+|\[[^\]]*\])(:\d+)?(.*)$/is.exec(url);
  if (!match) {
    return [url];
  }
  const [, scheme, host, port, rest] = match;
  const defaultPort = DEFAULT_PORTS[scheme.toLowerCase()];
  if (port && port !== defaultPort) {
    return [url];
  }
  return [`${scheme}://${host}${rest}`, `${scheme}://${host}${defaultPort}${rest}`];
}
