import { Injectable, Logger } from '@nestjs/common';
import { utcString } from '../../common/time/datetime';
import { KeyObject, createPublicKey, verify } from 'node:crypto';
import { AppConfig } from '../../config/configuration';
import { ProviderUrlSetting } from '../../config/provider-settings';
import { excerpt } from '../../common/net/http-answers';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  FieldRefusal,
  IncomingSms,
  OutgoingSms,
  ReportedStatus,
  RefusalCause,
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
  isTransientStatus,
  parseJson,
  BalanceCheckedAdapter,
  readBalance,
  sendAnswer,
  statusRefusalCause,
  unexpectedSendReply,
} from '../provider-http';
import { ALPHANUMERIC_SENDER, senderRefusal } from '../sender';

const PROVIDER = 'Telnyx';

/** Where Telnyx's API is: tests point it at a local fake. */
export const TELNYX_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'TELNYX_API_URL',
  default: 'https://api.telnyx.com',
};

/**
 * A recipient's `status` in a `message.sent` or `message.finalized` event. `sending_failed`
 * and `delivery_failed` are final failures; `delivery_unconfirmed` says the carrier sent no
 * receipt, and the others (queued, sending, sent) are on the way.
 */
const REPORTED_STATUSES: Readonly<Record<string, ReportedStatus>> = {
  delivered: 'delivered',
  delivery_failed: 'failed',
  sending_failed: 'failed',
};

/** How old a webhook's `telnyx-timestamp` may be, as Telnyx's own libraries allow. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The DER header of an Ed25519 SubjectPublicKeyInfo, before the 32 bytes of the key. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * A Telnyx number or alphanumeric sender, through Telnyx's Messaging API v2 with an API key.
 * Telnyx posts every event of a message as JSON to one webhook URL: `message.received` to the
 * messaging profile's, `message.sent` and `message.finalized` to the one given per message
 * (`status_change_callback`, Telnyx's `webhook_url`), else to the profile's too, where the
 * reception route applies them as receipts. Each event is signed with Ed25519, checked with the
 * account's public key.
 */
@Injectable()
export class TelnyxAdapter extends BalanceCheckedAdapter<number> implements Adapter {
  protected readonly provider = PROVIDER;
  protected readonly logger = new Logger(TelnyxAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'telnyx',
    alias: null,
    name: 'Telnyx',
    description: 'Sends through the Telnyx Messaging API v2.',
    fields: [
      secretField('api_key', 'Telnyx API key (v2).', true),
      field(
        'from',
        'Sender: a Telnyx number in international format, a short code, or an alphanumeric sender ID of up to 11 characters (with messaging_profile_id).',
        true,
      ),
      field(
        'messaging_profile_id',
        'Messaging profile to send with: required by Telnyx for an alphanumeric sender.',
        false,
      ),
      field(
        'public_key',
        "The account's public key (Mission Control, Keys & Credentials, base64): callbacks are only taken when their Ed25519 signature checks with it.",
        false,
      ),
      field(
        'status_change_callback',
        'URL Telnyx calls with the events of each message sent.',
        false,
      ),
    ],
    hideData: true,
    settings: [TELNYX_API_URL],
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: true };

  constructor(private readonly config: AppConfig) {
    super();
  }

  /** Creates a message (POST /v2/messages); its `id` is the uid its events carry. */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const problem = this.dataProblem(data);
    if (problem) {
      return { outcome: 'permanent', reason: problemText(problem), cause: 'phone' };
    }
    const body: Record<string, unknown> = { from: senderOf(data.from), to: sms.destination };
    // Telnyx takes an MMS without text, not an empty text.
    if (sms.text || !sms.medias.length) {
      body.text = sms.text;
    }
    if (data.messaging_profile_id) {
      body.messaging_profile_id = data.messaging_profile_id;
    }
    // The phone's own receipt URL unless the user gave one.
    const callback = data.status_change_callback || sms.callbackUrls?.status;
    if (callback) {
      body.webhook_url = callback;
    }
    if (sms.medias.length) {
      body.media_urls = sms.medias.map((media) => media.url);
    }
    const replied = await this.http().request(`${this.baseUrl()}/v2/messages`, {
      method: 'POST',
      headers: { ...headers(data), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = sendAnswer(PROVIDER, replied, refusedCredentials);
    if ('outcome' in reply) {
      return reply;
    }
    const answer = parseJson(reply.body);
    if (reply.status >= 200 && reply.status < 300) {
      const id = (answer as { data?: { id?: unknown } } | undefined)?.data?.id;
      return typeof id === 'string' && id
        ? { outcome: 'sent', uid: id }
        : {
            // It may have taken the message: sending again could deliver it twice.
            outcome: 'ambiguous',
            reason: `Telnyx answered HTTP ${reply.status} without a message id: check the message in the Telnyx portal before sending it again.`,
          };
    }
    const error = telnyxError(answer);
    if (isTransientStatus(reply.status)) {
      return error
        ? {
            outcome: 'transient',
            reason: `Telnyx could not take the message now (HTTP ${reply.status}, ${error}): try again later.`,
          }
        : unexpectedSendReply(PROVIDER, reply);
    }
    if (error) {
      return {
        outcome: 'permanent',
        reason: `Telnyx refused the message (${error}).`,
        cause: refusalCause(reply.status, answer),
      };
    }
    return unexpectedSendReply(PROVIDER, reply);
  }

  /**
   * A `message.sent` or `message.finalized` event: the message's id and its recipient's status.
   */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const event = eventOf(request);
    if (event?.type !== 'message.sent' && event?.type !== 'message.finalized') {
      return null;
    }
    const uid = event.payload.id;
    const to = Array.isArray(event.payload.to) ? (event.payload.to as unknown[]) : [];
    const reported = (to[0] as { status?: unknown } | undefined)?.status;
    if (typeof uid !== 'string' || !uid || typeof reported !== 'string') {
      return null;
    }
    return { uid, status: REPORTED_STATUSES[reported] ?? 'unknown' };
  }

  /** A `message.received` event: `from.phone_number`, `text` and `received_at`. */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const event = eventOf(request);
    if (event?.type !== 'message.received') {
      return null;
    }
    const origin = (event.payload.from as { phone_number?: unknown } | undefined)?.phone_number;
    const text = event.payload.text;
    if (typeof origin !== 'string' || !origin || typeof text !== 'string') {
      return null;
    }
    return {
      origin: normalizePhoneNumber(origin) ?? origin,
      text,
      at: utcDateTime(event.payload.received_at),
    };
  }

  /**
   * Telnyx's `telnyx-signature-ed25519`: the base64 Ed25519 signature of
   * `{telnyx-timestamp}|{body}`, made with the account's key. A timestamp more than five minutes
   * away is refused, so that a captured event cannot be replayed later.
   */
  verifyCallback(request: CallbackRequest, data: AdapterData): boolean {
    const signature = request.headers['telnyx-signature-ed25519'];
    const timestamp = request.headers['telnyx-timestamp'];
    const key = publicKeyOf(data.public_key);
    if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp) || !key) {
      return false;
    }
    const age = Math.abs(Date.now() / 1000 - Number(timestamp));
    if (age > SIGNATURE_TOLERANCE_SECONDS) {
      return false;
    }
    try {
      return verify(
        null,
        Buffer.from(`${timestamp}|${request.rawBody}`),
        key,
        Buffer.from(signature, 'base64'),
      );
    } catch {
      return false;
    }
  }

  /** A missing field, or a value Telnyx would refuse whatever it is asked. */
  protected dataProblem(data: AdapterData): string | FieldRefusal | null {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const from = data.from.trim();
    const refusal = senderRefusal(from);
    if (refusal) {
      return refusal;
    }
    if (ALPHANUMERIC_SENDER.test(from) && !data.messaging_profile_id?.trim()) {
      return {
        field: 'messaging_profile_id',
        reason: 'is required by Telnyx to send from an alphanumeric sender.',
      };
    }
    if (data.public_key && !publicKeyOf(data.public_key)) {
      return {
        field: 'public_key',
        reason: "must be the account's Ed25519 public key, 32 bytes in base64.",
      };
    }
    return null;
  }

  /** The account's available credit (GET /v2/balance): the credentials check. */
  protected async balance(data: AdapterData) {
    const reply = await this.http().request(`${this.baseUrl()}/v2/balance`, {
      headers: headers(data),
    });
    return readBalance(PROVIDER, reply, refusedCredentials, availableCredit);
  }

  protected hasCredit(credit: number): boolean {
    return credit > 0;
  }

  private http(): ProviderHttp {
    return new ProviderHttp(PROVIDER, this.baseUrl(), this.config.providers.timeoutMs);
  }

  private baseUrl(): string {
    return this.config.providers.settings.url(TELNYX_API_URL);
  }
}

function headers(data: AdapterData): Record<string, string> {
  return { Authorization: `Bearer ${data.api_key.trim()}`, Accept: 'application/json' };
}

function refusedCredentials(status: number): string {
  return `Telnyx refused the API key (HTTP ${status}): check api_key.`;
}

/** The `available_credit` of a balance answer (`{data: {balance, available_credit…}}`). */
function availableCredit(answer: unknown): number | undefined {
  const credit = (answer as { data?: { available_credit?: unknown } } | undefined)?.data
    ?.available_credit;
  const value = typeof credit === 'string' || typeof credit === 'number' ? Number(credit) : NaN;
  return credit !== '' && Number.isFinite(value) ? value : undefined;
}

/**
 * Whose a Telnyx refusal is (docs/adapters.md#refusals): the account's codes (10009
 * authentication failed, 40305 invalid from address) and HTTP 402 (no balance left) are the
 * phone's; every other refusal (40310 invalid to number, 40300 recipient opted out by STOP, ...)
 * is the recipient's.
 */
function refusalCause(status: number, answer: unknown): RefusalCause {
  const errors = (answer as { errors?: unknown } | undefined)?.errors;
  const code = Array.isArray(errors)
    ? String((errors[0] as { code?: unknown } | undefined)?.code)
    : '';
  return PHONE_CODES.has(code) ? 'phone' : statusRefusalCause(status);
}

const PHONE_CODES: ReadonlySet<string> = new Set(['10009', '40305']);

/** The first entry of Telnyx's `errors[]`, as `error CODE: title: detail`. */
function telnyxError(answer: unknown): string | undefined {
  const errors = (answer as { errors?: unknown } | undefined)?.errors;
  const first = Array.isArray(errors) ? (errors[0] as Record<string, unknown> | undefined) : null;
  if (!first) {
    return undefined;
  }
  const words = [first.title, first.detail]
    .filter((text): text is string => typeof text === 'string' && text.trim() !== '')
    .map(excerpt);
  const code = typeof first.code === 'string' || typeof first.code === 'number' ? first.code : '';
  if (!code && words.length === 0) {
    return undefined;
  }
  return [code ? `error ${code}` : 'error', ...words].join(': ');
}

/** A numeric sender in E.164; an alphanumeric one as given. */
function senderOf(from: string): string {
  return normalizePhoneNumber(from.trim()) ?? from.trim();
}

/** The account's public key, or undefined when the text is not a raw Ed25519 key in base64. */
function publicKeyOf(text: string | undefined): KeyObject | undefined {
  const raw = Buffer.from((text ?? '').trim(), 'base64');
  if (raw.length !== 32) {
    return undefined;
  }
  try {
    return createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, raw]),
      format: 'der',
      type: 'spki',
    });
  } catch {
    return undefined;
  }
}

/** A webhook's `data.event_type` and `data.payload`, read from the JSON body as posted. */
function eventOf(
  request: CallbackRequest,
): { type: string; payload: Record<string, unknown> } | undefined {
  const data = (parseJson(request.rawBody) as { data?: unknown } | undefined)?.data as
    { event_type?: unknown; payload?: unknown } | undefined;
  if (typeof data?.event_type !== 'string' || !data.payload || typeof data.payload !== 'object') {
    return undefined;
  }
  return { type: data.event_type, payload: data.payload as Record<string, unknown> };
}

/** An ISO 8601 time as UTC `YYYY-MM-DD HH:MM:SS`; null when it does not parse. */
function utcDateTime(value: unknown): string | null {
  if (typeof value !== 'string') {
    return null;
  }
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : utcString(time);
}
