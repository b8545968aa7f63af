import { Injectable, Logger } from '@nestjs/common';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../../config/configuration';
import { ProviderUrlSetting } from '../../config/provider-settings';
import { excerpt } from '../../common/net/http-answers';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { measureSms } from '../../common/text/gsm';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  callbackParam,
  fieldsStatusReport,
  FieldRefusal,
  IncomingSms,
  OutgoingSms,
  ReportedStatus,
  SendResult,
  StatusReport,
  field,
  missingRequiredField,
  problemText,
  secretField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { senderRefusal } from '../sender';
import { within } from '../validity';
import {
  ProviderHttp,
  BalanceCheckedAdapter,
  parseJson,
  readBalance,
  sendAnswer,
  unexpectedSendReply,
} from '../provider-http';

const PROVIDER = 'Vonage';

/** The bounds of the SMS API's `ttl`, in milliseconds: 20 seconds to 7 days. */
const VONAGE_MIN_TTL_MS = 20_000;
const VONAGE_MAX_TTL_MS = 604_800_000;

/** Where Vonage's SMS API is: tests point it at a local fake. */
export const VONAGE_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'VONAGE_API_URL',
  default: 'https://rest.nexmo.com',
};

/** The signature methods a Vonage account can be set to, `md5hash` being Vonage's default. */
export const SIGNATURE_METHODS = ['md5hash', 'md5', 'sha1', 'sha256', 'sha512'] as const;

/**
 * A DLR's `status`. `expired`, `failed` and `rejected` are final failures in Vonage's docs;
 * `accepted` and `buffered` are on the way and `unknown` says the carrier gave nothing.
 */
const REPORTED_STATUSES: Readonly<Record<string, ReportedStatus>> = {
  delivered: 'delivered',
  expired: 'failed',
  failed: 'failed',
  rejected: 'failed',
};

/**
 * Per-message statuses of the SMS API that mean Vonage did not take the message and may later:
 * 1 Throttled, 5 Internal Error ("there was an error processing the message in the platform").
 */
const NOT_TAKEN_FOR_NOW = new Set(['1', '5']);

/** What a user should check for per-message statuses that are theirs to fix. */
const STATUS_HINTS: Readonly<Record<string, string>> = {
  '4': 'check api_key and api_secret',
  '8': 'the Vonage account is barred',
  '9': "the Vonage account's balance is too low",
  '15': 'check from: Vonage does not accept it as a sender',
  '29': 'the account is in trial mode and the destination is not a whitelisted test number',
};

/**
 * Vonage's statuses that refuse the sending account rather than the recipient
 * (docs/adapters.md#refusals): 2 missing parameters, 4 invalid credentials, 8 account barred,
 * 9 balance too low, 11 account not enabled for this API, 14 invalid signature, 15 sender not
 * allowed, 23 invalid callback URL, 29 trial account (another account may reach the number),
 * 32 signature method not allowed. The others (3 invalid parameters, 6 unroutable message, 7
 * number barred, 12 message too long, 22 invalid network, 33 number de-activated) are the
 * recipient's or the message's.
 */
const PHONE_STATUSES: ReadonlySet<string> = new Set([
  '2',
  '4',
  '8',
  '9',
  '11',
  '14',
  '15',
  '23',
  '29',
  '32',
]);

/**
 * A Vonage account, through Vonage's SMS API (`/sms/json`) authenticated with the API key and
 * secret. Receipts come to the URL given per message (`status_change_callback`, Vonage's
 * `callback`) or to the account's delivery-receipt webhook; inbound messages to the number's
 * inbound webhook. When the account signs its webhooks, the phone's `signature_secret` and
 * `signature_method` make smsgw ignore those whose `sig` does not match.
 */
@Injectable()
export class VonageAdapter
  extends BalanceCheckedAdapter<{ value: number; autoReload: boolean }>
  implements Adapter
{
  protected readonly provider = PROVIDER;
  protected readonly logger = new Logger(VonageAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'vonage',
    alias: null,
    name: 'Vonage',
    description: 'Sends through the Vonage (Nexmo) SMS API.',
    fields: [
      field('api_key', 'Vonage API key.', true),
      secretField('api_secret', 'Vonage API secret.', true),
      field(
        'from',
        'Sender: a Vonage number in international format, a short code, or an alphanumeric sender ID of up to 11 characters where the destination country allows it.',
        true,
      ),
      secretField(
        'signature_secret',
        'Signature secret of the account, when it signs its webhooks: unsigned or wrongly signed callbacks are then ignored.',
        false,
      ),
      field(
        'signature_method',
        `Signature method of the account: ${SIGNATURE_METHODS.join(', ')} (default md5hash).`,
        false,
      ),
      field('status_change_callback', 'URL Vonage calls with delivery receipts.', false),
    ],
    hideData: true,
    settings: [VONAGE_API_URL],
  };
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

  constructor(private readonly config: AppConfig) {
    super();
  }

  /**
   * Sends one SMS (POST /sms/json). A long text goes as several parts, each with its own
   * message-id; the first part's is the uid, and only its receipt is matched.
   */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const problem = this.dataProblem(data);
    if (problem) {
      return { outcome: 'permanent', reason: problemText(problem), cause: 'phone' };
    }
    const form = new URLSearchParams({
      api_key: data.api_key,
      api_secret: data.api_secret,
      from: senderOf(data.from),
      // Vonage wants international numbers without their leading +.
      to: sms.destination.replace(/^\+/, ''),
      text: sms.text,
    });
    if (measureSms(sms.text).encoding === 'UCS-2') {
      // Without it Vonage sends GSM-7 and replaces what it cannot encode.
      form.set('type', 'unicode');
    }
    if (sms.flash) {
      form.set('message-class', '0');
    }
    // The phone's own receipt URL unless the user gave one.
    const callback = data.status_change_callback || sms.callbackUrls?.status;
    if (callback) {
      form.set('callback', callback);
    }
    if (sms.validitySeconds !== null) {
      form.set(
        'ttl',
        String(within(sms.validitySeconds * 1000, VONAGE_MIN_TTL_MS, VONAGE_MAX_TTL_MS)),
      );
    }
    const replied = await this.http().request(`${this.baseUrl()}/sms/json`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: form.toString(),
    });
    const reply = sendAnswer(PROVIDER, replied, refusedCredentials);
    if ('outcome' in reply) {
      return reply;
    }
    const parts = reply.status === 200 ? messageParts(parseJson(reply.body)) : undefined;
    if (!parts) {
      if (reply.status === 200) {
        return {
          // It may have taken the message: sending again could deliver it twice.
          outcome: 'ambiguous',
          reason:
            'Vonage answered HTTP 200 without a list of messages: check the message in the Vonage dashboard before sending it again.',
        };
      }
      return unexpectedSendReply(PROVIDER, reply);
    }
    return partsOutcome(parts);
  }

  /**
   * A delivery receipt, posted as a form, as JSON or given in the query as the account's
   * webhook method says: `messageId` and `status`.
   */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    return fieldsStatusReport(request, 'messageId', 'status', REPORTED_STATUSES);
  }

  /**
   * An inbound message: `msisdn` (the sender, international without +), `text`, `messageId`
   * and `message-timestamp` (UTC). Each part of a long message comes as its own callback, and
   * so is stored as its own message.
   */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const msisdn = callbackParam(request, 'msisdn');
    const text = callbackParam(request, 'text');
    if (!callbackParam(request, 'messageId') || !msisdn || text === undefined) {
      return null;
    }
    const at = callbackParam(request, 'message-timestamp');
    return {
      origin: normalizePhoneNumber(`+${msisdn}`) ?? msisdn,
      text,
      at: at && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(at) ? at : null,
    };
  }

  /**
   * Vonage's signed webhooks (`sig`): every parameter but `sig`, sorted by name, written
   * `&name=value` with `&` and `=` in values replaced by `_`, then hashed with the signature
   * secret appended (md5hash) or as an HMAC keyed with it (md5, sha1, sha256, sha512), in hex.
   * A phone without `signature_secret` takes callbacks unsigned, as Vonage sends them then.
   */
  verifyCallback(request: CallbackRequest, data: AdapterData): boolean {
    const secret = data.signature_secret;
    if (!secret) {
      return true;
    }
    const params: Record<string, string> = { ...request.query, ...request.form };
    const given = params.sig;
    const method = signatureMethodOf(data);
    if (!given || !method) {
      return false;
    }
    delete params.sig;
    const withoutKey = { ...params };
    // smsgw's own api_key in the URL is not one of Vonage's parameters, unless Vonage signed
    // the URL's query as it got it: both are tried, each needing the secret.
    delete withoutKey.api_key;
    const expected = [withoutKey, params].map((candidate) =>
      vonageSignature(candidate, secret, method),
    );
    const actual = Buffer.from(given.toLowerCase());
    return expected.some((signature) => {
      const wanted = Buffer.from(signature);
      return wanted.length === actual.length && timingSafeEqual(wanted, actual);
    });
  }

  /** A missing field, or a field value Vonage would refuse whatever it is asked. */
  protected dataProblem(data: AdapterData): string | FieldRefusal | null {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    if (data.signature_method && !signatureMethodOf(data)) {
      return {
        field: 'signature_method',
        reason: `must be one of ${SIGNATURE_METHODS.join(', ')}.`,
      };
    }
    return senderRefusal(data.from.trim());
  }

  /** The account's balance (GET /account/get-balance): the credentials check. */
  protected async balance(data: AdapterData) {
    const query = new URLSearchParams({ api_key: data.api_key, api_secret: data.api_secret });
    const reply = await this.http().request(
      `${this.baseUrl()}/account/get-balance?${query.toString()}`,
      { headers: { Accept: 'application/json' } },
    );
    return readBalance(PROVIDER, reply, refusedCredentials, balanceOf);
  }

  /** An account that reloads itself runs out of nothing. */
  protected hasCredit(credit: { value: number; autoReload: boolean }): boolean {
    return credit.value > 0 || credit.autoReload;
  }

  private http(): ProviderHttp {
    // The location never shows the query, which holds the credentials.
    return new ProviderHttp(PROVIDER, this.baseUrl(), this.config.providers.timeoutMs);
  }

  private baseUrl(): string {
    return this.config.providers.settings.url(VONAGE_API_URL);
  }
}

/** A part of a send's answer, as `messages[]` gives it. */
interface MessagePart {
  status: string;
  id?: string;
  errorText?: string;
}

function refusedCredentials(status: number): string {
  return `Vonage refused the credentials (HTTP ${status}): check api_key and api_secret.`;
}

/** The account balance of a get-balance answer: `{value, autoReload}`. */
function balanceOf(answer: unknown): { value: number; autoReload: boolean } | undefined {
  const { value, autoReload } = (answer ?? {}) as { value?: unknown; autoReload?: unknown };
  return typeof value === 'number' && Number.isFinite(value)
    ? { value, autoReload: autoReload === true }
    : undefined;
}

/** The `messages[]` of a send's answer, each with its `status` (a string of digits). */
function messageParts(answer: unknown): MessagePart[] | undefined {
  const messages = (answer as { messages?: unknown } | undefined)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return undefined;
  }
  const parts: MessagePart[] = [];
  for (const message of messages as unknown[]) {
    const entry = (message ?? {}) as Record<string, unknown>;
    const status = entry.status;
    if (typeof status !== 'string' && typeof status !== 'number') {
      return undefined;
    }
    parts.push({
      status: String(status),
      id: typeof entry['message-id'] === 'string' ? entry['message-id'] : undefined,
      errorText: typeof entry['error-text'] === 'string' ? entry['error-text'] : undefined,
    });
  }
  return parts;
}

function partsOutcome(parts: MessagePart[]): SendResult {
  const taken = parts.filter((part) => part.status === '0');
  const refused = parts.find((part) => part.status !== '0');
  if (!refused) {
    const uid = parts[0].id;
    return uid
      ? { outcome: 'sent', uid }
      : {
          outcome: 'ambiguous',
          reason:
            'Vonage took the message without a message-id: check the message in the Vonage dashboard before sending it again.',
        };
  }
  const words = refusalWords(refused);
  if (taken.length > 0) {
    // Sending it again would deliver the parts already taken twice.
    return {
      outcome: 'ambiguous',
      reason: `Vonage took ${taken.length} of the ${parts.length} parts of the message and refused the others (${words}).`,
    };
  }
  if (NOT_TAKEN_FOR_NOW.has(refused.status)) {
    return {
      outcome: 'transient',
      reason: `Vonage could not take the message now (${words}): try again later.`,
    };
  }
  const hint = STATUS_HINTS[refused.status];
  return {
    outcome: 'permanent',
    reason: `Vonage refused the message (${words})${hint ? `: ${hint}` : ''}.`,
    cause: PHONE_STATUSES.has(refused.status) ? 'phone' : 'recipient',
  };
}

function refusalWords(part: MessagePart): string {
  const text = part.errorText ? excerpt(part.errorText) : '';
  return text ? `status ${part.status}: ${text}` : `status ${part.status}`;
}

/** A numeric sender as Vonage takes it (no +); an alphanumeric one as given. */
function senderOf(from: string): string {
  const number = normalizePhoneNumber(from.trim());
  return number ? number.slice(1) : from.trim();
}

function signatureMethodOf(data: AdapterData): (typeof SIGNATURE_METHODS)[number] | undefined {
  const method = (data.signature_method || 'md5hash').trim().toLowerCase();
  return SIGNATURE_METHODS.find((candidate) => candidate === method);
}

/** Vonage's `sig` of `params` (without `sig`), in lowercase hex. */
function vonageSignature(
  params: Readonly<Record<string, string>>,
  secret: string,
  method: (typeof SIGNATURE_METHODS)[number],
): string {
  const signed = Object.keys(params)
    .sort()
    .map((name) => `&${name}=${params[name].replace(/[&=]/g, '_')}`)
    .join('');
  if (method === 'md5hash') {
    return createHash('md5').update(`${signed}${secret}`).digest('hex');
  }
  return createHmac(method, secret).update(signed).digest('hex');
}
