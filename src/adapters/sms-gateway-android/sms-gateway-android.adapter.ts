import { Injectable, Logger } from '@nestjs/common';
import { CallbackUrls } from '../../common/http/callback-urls';
import { DateTime } from 'luxon';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { OutboundPolicy } from '../../common/net/outbound-policy';
import { excerpt } from '../../common/net/http-answers';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { API_DATETIME_FORMAT } from '../../common/time/datetime';
import { AppConfig } from '../../config/configuration';
import { ProviderUrlSetting } from '../../config/provider-settings';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  FieldRefusal,
  IncomingSms,
  OutgoingSms,
  PhoneStatus,
  ReportedStatus,
  SendResult,
  StatusReport,
  field,
  missingRequiredField,
  problemText,
  secretField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  ProviderHttp,
  ProviderReply,
  httpUrl,
  parseJson,
  sendAnswer,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';

const PROVIDER = 'SMS Gateway for Android';

/** Where the public cloud server's API is: tests point it at a local fake. */
export const SMS_GATEWAY_ANDROID_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'SMS_GATEWAY_ANDROID_API_URL',
  default: 'https://api.sms-gate.app/3rdparty/v1',
};

/**
 * How far a webhook's X-Timestamp may be from now: the app signs when it sends, and retries
 * sign again, so an older request is a replay.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The webhook events that end a sent message; `sms:sent` only says the phone handed it on. */
const REPORTED_EVENTS: Readonly<Record<string, ReportedStatus>> = {
  'sms:delivered': 'delivered',
  'sms:failed': 'failed',
  'sms:sent': 'unknown',
};

/**
 * An Android phone running SMS Gateway for Android ("SMSGate"), through the app's own HTTP
 * server on the phone (local server mode: `api_url` is the phone's address) or through the
 * cloud or a private server relaying to it (`api_url` empty for the public cloud). Both answer
 * the same API with Basic auth.
 *
 * Receipts and inbound messages are the app's webhooks (`sms:delivered`, `sms:failed`,
 * `sms:received`), which the user registers with `POST /webhooks` (docs/adapters.md). The app
 * signs every webhook with its signing key, and smsgw ignores those that `signing_key` does
 * not verify.
 */
@Injectable()
export class SmsGatewayAndroidAdapter implements Adapter {
  private readonly logger = new Logger(SmsGatewayAndroidAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'sms_gateway_android',
    alias: null,
    name: 'SMS Gateway for Android',
    description:
      'Sends through an Android phone running the SMS Gateway for Android app, by its local server or by the cloud.',
    fields: [
      field(
        'api_url',
        "The app's local server (such as http://192.168.1.50:8080) or a private server's API; empty for the public cloud.",
        false,
      ),
      field('username', 'The username the app shows for the server in use.', true),
      secretField('password', 'The password the app shows for the server in use.', true),
      secretField('signing_key', "The app's webhook signing key (Settings, Webhooks).", true),
    ],
    hideData: true,
    settings: [SMS_GATEWAY_ANDROID_API_URL],
  };
  /** Idempotent: the server refuses (409) a second message with an id it has. */
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false, idempotent: true };

  constructor(
    private readonly config: AppConfig,
    private readonly outbound: OutboundPolicy,
  ) {}

  /**
   * Asks for a message that does not exist: the server answers 404 to good credentials and 401
   * to others. The same request without credentials must then be refused, or `api_url` is not
   * the app's API (whose unknown paths answer 404 whatever the credentials).
   */
  async test(data: AdapterData): Promise<string | FieldRefusal | null> {
    const target = this.target(data);
    if (typeof target === 'string' || 'field' in target) {
      return target;
    }
    const url = `${target.base}/message/${randomUUID()}`;
    const reply = await target.http.request(url, { headers: this.headers(data) });
    const problem = this.credentialsProblem(reply, target.base);
    if (problem !== undefined) {
      return problem;
    }
    const anonymous = await target.http.request(url, { headers: { Accept: 'application/json' } });
    if (!anonymous.ok) {
      return anonymous.reason;
    }
    if (anonymous.status !== 401) {
      return notTheApi(target.base, anonymous.status);
    }
    return null;
  }

  /** The app reports no account state: a server that passes the test can send. */
  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem = await this.test(data);
    if (problem) {
      this.logger.warn(`SMS Gateway for Android status check: ${problemText(problem)}`);
      return 'unavailable';
    }
    return 'available';
  }

  /**
   * One `POST /message`. The id is the recipient's idempotency key, the same on every attempt:
   * the server refuses a second message with an id it has (409), so a retry after an ambiguous
   * outcome cannot deliver it twice, and the id is the message's uid, which its webhooks carry
   * as `messageId`.
   */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const target = this.target(data);
    if (typeof target === 'string' || 'field' in target) {
      return { outcome: 'permanent', reason: problemText(target), cause: 'phone' };
    }
    const id = sms.idempotencyKey;
    // `message` rather than `textMessage`: every version of the app and of the servers takes it.
    const body = JSON.stringify({
      id,
      message: sms.text,
      phoneNumbers: [sms.destination],
      withDeliveryReport: true,
      // Seconds within which the phone must take the message, or the app fails it.
      ...(sms.validitySeconds === null ? {} : { ttl: Math.max(1, sms.validitySeconds) }),
    });
    const replied = await target.http.request(`${target.base}/message`, {
      method: 'POST',
      headers: { ...this.headers(data), 'Content-Type': 'application/json' },
      body,
    });
    const reply = sendAnswer(PROVIDER, replied, refusedCredentials);
    if ('outcome' in reply) {
      return reply;
    }
    if (reply.status === 409) {
      // Only this recipient's attempts have this id: an earlier one was taken.
      return { outcome: 'sent', uid: id };
    }
    if (reply.status >= 200 && reply.status < 300) {
      const given = (parseJson(reply.body) as { id?: unknown } | undefined)?.id;
      return given === id
        ? { outcome: 'sent', uid: id }
        : {
            // It may have taken the message: tried again with the same id, it answers 409 if so.
            outcome: 'ambiguous',
            reason: `${PROVIDER} at ${target.base} answered HTTP ${reply.status} without the message's id.`,
          };
    }
    if (reply.status === 400) {
      // What the app refuses with 400 is the message itself: its number or its text.
      const said = errorMessage(reply.body);
      return {
        outcome: 'permanent',
        reason: `${PROVIDER} refused the message${said ? `: ${sentence(said)}` : '.'}`,
        cause: 'recipient',
      };
    }
    return unexpectedSendReply(PROVIDER, reply);
  }

  /** `sms:delivered`, `sms:failed` or `sms:sent`: the payload's `messageId` is the uid. */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const event = webhookEvent(request);
    const status = event && REPORTED_EVENTS[event.event];
    const uid = event?.payload.messageId;
    if (!status || typeof uid !== 'string' || !uid) {
      return null;
    }
    return { uid, status };
  }

  /** `sms:received`: `sender` (`phoneNumber` before app 1.40), `message` and `receivedAt`. */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const event = webhookEvent(request);
    if (event?.event !== 'sms:received') {
      return null;
    }
    const { sender, phoneNumber, message, receivedAt } = event.payload;
    const origin = typeof sender === 'string' && sender ? sender : phoneNumber;
    if (typeof origin !== 'string' || !origin.trim() || typeof message !== 'string') {
      return null;
    }
    return {
      origin: normalizePhoneNumber(origin.trim()) ?? origin.trim(),
      text: message,
      at: utcTime(receivedAt),
    };
  }

  /**
   * The app's `X-Signature`: hex HMAC-SHA256, keyed with its signing key, of the raw body
   * followed by `X-Timestamp` (Unix seconds), which must be recent.
   */
  verifyCallback(request: CallbackRequest, data: AdapterData): boolean {
    const signature = request.headers['x-signature'];
    const timestamp = request.headers['x-timestamp'];
    if (!signature || !timestamp || !data.signing_key || !/^\d{1,12}$/.test(timestamp)) {
      return false;
    }
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
      return false;
    }
    const expected = Buffer.from(
      createHmac('sha256', data.signing_key).update(`${request.rawBody}${timestamp}`).digest('hex'),
    );
    const given = Buffer.from(signature.trim().toLowerCase());
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /**
   * Where the phone's API is and how to reach it: a URL the user gave goes through the outbound
   * policy, the cloud's is the operator's setting. A sentence when the data are incomplete.
   */
  /**
   * Registers the app's webhooks for the phone's URLs: `sms:received` to its reception URL,
   * `sms:delivered` and `sms:failed` to its status URL. Each under an id of smsgw's per event,
   * so that registering again (a new token, new credentials) replaces them rather than adding.
   */
  async registerCallbacks(data: AdapterData, urls: CallbackUrls): Promise<string | null> {
    const target = this.target(data);
    if (typeof target === 'string' || 'field' in target) {
      return problemText(target);
    }
    for (const [event, url] of [
      ['sms:received', urls.reception],
      ['sms:delivered', urls.status],
      ['sms:failed', urls.status],
    ] as const) {
      const reply = await target.http.request(`${target.base}/webhooks`, {
        method: 'POST',
        headers: { ...this.headers(data), 'Content-Type': 'application/json' },
        body: JSON.stringify({ id: `smsgw-${event.replace(':', '-')}`, url, event }),
      });
      if (!reply.ok) {
        return reply.reason;
      }
      if (reply.status < 200 || reply.status >= 300) {
        const said = errorMessage(reply.body);
        return `${PROVIDER} refused the ${event} webhook (HTTP ${reply.status}${said ? `: ${said}` : ''}); the app calls only https:// URLs, so PUBLIC_URL must be one.`;
      }
    }
    return null;
  }

  private target(data: AdapterData): Target | FieldRefusal | string {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const { settings, timeoutMs } = this.config.providers;
    const given = data.api_url?.trim();
    if (!given) {
      const base = settings.url(SMS_GATEWAY_ANDROID_API_URL);
      return { base, http: new ProviderHttp(PROVIDER, base, timeoutMs) };
    }
    const url = httpUrl(given);
    if (!url || url.username || url.password || url.search || url.hash) {
      return {
        field: 'api_url',
        reason:
          "must be an http(s) URL such as http://192.168.1.50:8080, without credentials or query: the address the app's local server shows, or a private server's API.",
      };
    }
    const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    return { base, http: new ProviderHttp(PROVIDER, base, timeoutMs, this.outbound) };
  }

  /** undefined when the authenticated request was answered as good credentials get answered. */
  private credentialsProblem(
    reply: ProviderReply,
    base: string,
  ): string | FieldRefusal | undefined {
    if (!reply.ok) {
      return reply.refusal ? { field: 'api_url', reason: reply.refusal.message } : reply.reason;
    }
    if (reply.status === 401 || reply.status === 403) {
      return refusedCredentials(reply.status);
    }
    if (reply.status === 404) {
      return undefined;
    }
    if (reply.status >= 300 && reply.status < 400) {
      return `${base} answered HTTP ${reply.status}, a redirect, which smsgw does not follow: give the final URL of the API as api_url.`;
    }
    return unexpectedStatus(PROVIDER, reply.status);
  }

  private headers(data: AdapterData): Record<string, string> {
    const credentials = Buffer.from(`${data.username}:${data.password}`).toString('base64');
    return { Authorization: `Basic ${credentials}`, Accept: 'application/json' };
  }
}

interface Target {
  /** The API's base URL, without a trailing slash: never with credentials, so fit for sentences. */
  base: string;
  http: ProviderHttp;
}

/** A webhook's envelope: `{event, payload, id, deviceId, webhookId}` posted as JSON. */
interface WebhookEvent {
  event: string;
  payload: Record<string, unknown>;
}

function webhookEvent(request: CallbackRequest): WebhookEvent | null {
  const body = parseJson(request.rawBody) as { event?: unknown; payload?: unknown } | undefined;
  if (
    !body ||
    typeof body !== 'object' ||
    typeof body.event !== 'string' ||
    !body.payload ||
    typeof body.payload !== 'object'
  ) {
    return null;
  }
  return { event: body.event, payload: body.payload as Record<string, unknown> };
}

/** An ISO 8601 time with its offset, as the app writes dates, in UTC; null when it is not one. */
function utcTime(value: unknown): string | null {
  if (typeof value !== 'string') {
    return null;
  }
  const parsed = DateTime.fromISO(value, { setZone: true });
  return parsed.isValid ? parsed.toUTC().toFormat(API_DATETIME_FORMAT) : null;
}

function refusedCredentials(status: number): string {
  return `${PROVIDER} refused the credentials (HTTP ${status}): check username and password against those the app shows for the server in use.`;
}

function notTheApi(base: string, status: number): string {
  return `${base} answered HTTP ${status} where ${PROVIDER}'s API refuses a request without credentials: check api_url (the address the app's local server shows, such as http://192.168.1.50:8080).`;
}

/** The `message` of the server's error body `{"message": …}`, as an excerpt. */
function errorMessage(body: string): string {
  const message = (parseJson(body) as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? excerpt(message) : '';
}

/** `text` ending with a full stop, to sit inside a sentence of ours. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
