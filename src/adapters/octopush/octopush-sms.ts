import { Injectable, Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { API_DATETIME_FORMAT } from '../../common/time/datetime';
import { AppConfig } from '../../config/configuration';
import { ProviderUrlSetting } from '../../config/provider-settings';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  IncomingSms,
  OutgoingSms,
  PhoneStatus,
  RefusalCause,
  SendResult,
  StatusReport,
  field,
  missingRequiredField,
  secretField,
} from '../adapter';
import { AdapterDataField, AdapterDescriptor } from '../adapter.descriptor';
import {
  ProviderHttp,
  ProviderReply,
  parseJson,
  statusRefusalCause,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';
import { OctopushClient, octopushCredentialsProblem, octopushError } from './octopush.client';

/*
 * What the two Octopush adapters share: the account's credentials, the kind of SMS it pays for,
 * and all they do with Octopush's API but what a campaign says about its sender.
 */

/** Where Octopush's public API is: a local fake for tests. */
export const OCTOPUSH_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'OCTOPUSH_API_URL',
  default: 'https://api.octopush.com/v1/public',
};

export const OCTOPUSH_ACCOUNT_FIELDS: AdapterDataField[] = [
  field('login', 'Octopush API login (the e-mail address of the account).', true),
  secretField('api_key', 'Octopush API key.', true),
  field(
    'sms_type',
    'Kind of SMS: "low cost" (the default) or "premium"; sms_low_cost and sms_premium too.',
    false,
  ),
];

/** The values RaspiSMS users give `sms_type`, and Octopush's own names for them. */
const SMS_TYPES: Readonly<Record<string, string>> = {
  '': 'sms_low_cost',
  'low cost': 'sms_low_cost',
  premium: 'sms_premium',
  sms_low_cost: 'sms_low_cost',
  sms_premium: 'sms_premium',
};

/** Octopush's `type` for the phone's `sms_type`, or undefined when it names none. */
function smsType(data: AdapterData): string | undefined {
  return SMS_TYPES[(data.sms_type ?? '').trim().toLowerCase()];
}

/** Octopush's delivery states that say the message will never reach the handset. */
const FAILED_STATES = new Set(['NOT_DELIVERED', 'NOT_ALLOWED', 'BLACKLISTED_NUMBER']);

/**
 * An Octopush adapter: the two differ only in what their data hold beside the account's and in
 * the sender a campaign names.
 */
@Injectable()
export abstract class OctopushSmsAdapter implements Adapter {
  abstract readonly descriptor: AdapterDescriptor;
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };
  protected readonly logger = new Logger(this.constructor.name);

  constructor(protected readonly config: AppConfig) {}

  /** What a campaign holds beside its text, recipient, type and purpose. */
  protected abstract campaign(data: AdapterData): Record<string, unknown>;

  /** Why the data cannot work whatever Octopush says, beside the account's fields. */
  protected dataProblem(_data: AdapterData): string | null {
    return null;
  }

  async test(data: AdapterData): Promise<string | null> {
    const client = this.client(data);
    if (typeof client === 'string') {
      return client;
    }
    const reply = await client.request('GET', '/wallet/check-balance');
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status !== 200) {
      return refusal(reply);
    }
    // A proxy's or a captive portal's page answers 200 too, and would pass for Octopush.
    return jsonObject(reply.body)
      ? null
      : 'Octopush answered its balance check with something other than its JSON answer: check OCTOPUSH_API_URL.';
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const client = this.client(data);
    if (typeof client === 'string') {
      return 'unavailable';
    }
    const reply = await client.request('GET', '/wallet/check-balance');
    if (!reply.ok || reply.status !== 200) {
      this.logger.warn(`Octopush status check: ${reply.ok ? refusal(reply) : reply.reason}`);
      return 'unavailable';
    }
    const balance = jsonObject(reply.body);
    if (!balance) {
      this.logger.warn('Octopush status check: the balance answer is not JSON.');
      return 'unavailable';
    }
    return typeof balance.amount === 'number' && balance.amount <= 0 ? 'no_credit' : 'available';
  }

  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const client = this.client(data);
    if (typeof client === 'string') {
      return { outcome: 'permanent', reason: client, cause: 'phone' };
    }
    const reply = await client.request('POST', '/sms-campaign/send', {
      text: sms.text,
      recipients: [{ phone_number: sms.destination }],
      type: smsType(data),
      // Octopush sends "alert" campaigns (one-to-one, transactional) without the STOP mention
      // and at any hour, as a gateway's messages must go.
      purpose: 'alert',
      ...this.campaign(data),
    });
    if (!reply.ok || (reply.status !== 200 && reply.status !== 201)) {
      return sendRefusal(reply);
    }
    const answer = jsonObject(reply.body);
    if (!answer) {
      return {
        outcome: 'ambiguous',
        reason: `Octopush answered HTTP ${reply.status} with something other than its JSON answer, so the message may have been sent or not: check the campaigns in the Octopush account before sending it again.`,
      };
    }
    const ticket = answer.sms_ticket;
    if (typeof ticket !== 'string' || !ticket.trim()) {
      return {
        outcome: 'ambiguous',
        reason:
          'Octopush accepted the message without giving its ticket, so smsgw cannot follow it: check the campaigns in the Octopush account.',
      };
    }
    return { outcome: 'sent', uid: ticket };
  }

  /**
   * A delivery receipt as Octopush posts it (JSON): `message_id`, the ticket the campaign got,
   * and `status`, its state at the operator.
   */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const uid = read(request, 'message_id');
    if (!uid) {
      return null;
    }
    const state = read(request, 'status').toUpperCase();
    const status =
      state === 'DELIVERED' ? 'delivered' : FAILED_STATES.has(state) ? 'failed' : 'unknown';
    return { uid, status };
  }

  /**
   * An answer as Octopush posts it (JSON): `number`, who sent it, `text`, and
   * `reception_date`, in Paris time when it carries no offset.
   */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const number = read(request, 'number');
    const text = request.form.text ?? request.query.text;
    if (!number || typeof text !== 'string') {
      return null;
    }
    const international = number.replace(/^00/, '+');
    return {
      origin: normalizePhoneNumber(international) ?? number,
      text,
      at: utcDate(read(request, 'reception_date')),
    };
  }

  /** A client for `data`, or why it cannot have one. */
  private client(data: AdapterData): OctopushClient | string {
    const credentials = { login: data.login ?? '', apiKey: data.api_key ?? '' };
    const problem =
      missingRequiredField(this.descriptor, data) ??
      (smsType(data) ? null : 'sms_type must be "low cost" or "premium".') ??
      this.dataProblem(data) ??
      octopushCredentialsProblem(credentials);
    if (problem) {
      return problem;
    }
    const { settings, timeoutMs } = this.config.providers;
    const apiUrl = settings.url(OCTOPUSH_API_URL);
    return new OctopushClient(apiUrl, credentials, new ProviderHttp('Octopush', apiUrl, timeoutMs));
  }
}

/** Why `sender` cannot be an Octopush sender, or null when it can (or is empty). */
export function checkOctopushSender(sender: string): string | null {
  return sender && !/^[A-Za-z0-9]{3,11}$/.test(sender)
    ? 'sender must be 3 to 11 letters or digits.'
    : null;
}

/** Why Octopush refused a request, for an answer no rule of the check expects. */
function refusal(reply: Extract<ProviderReply, { ok: true }>): string {
  if (reply.status === 401 || reply.status === 403) {
    const said = octopushError(reply.body);
    return `Octopush refused the credentials (HTTP ${reply.status}${said ? `: ${said}` : ''}): check login and api_key.`;
  }
  return unexpectedStatus('Octopush', reply.status);
}

/**
 * Octopush's error codes that refuse the account rather than the message
 * (docs/adapters.md#refusals): 100 and 101 credentials missing or wrong, 108 a sender it does not
 * take, 113 not enough credit. The others (104 text, 105 recipients, ...) are the message's or
 * its recipient's.
 */
const PHONE_CODES: ReadonlySet<string> = new Set(['100', '101', '108', '113']);

/** The outcome of a campaign Octopush did not accept. */
function sendRefusal(reply: ProviderReply): SendResult {
  if (!reply.ok || reply.status === 429 || reply.status >= 500) {
    return unexpectedSendReply('Octopush', reply);
  }
  if (reply.status === 401 || reply.status === 403) {
    return { outcome: 'permanent', reason: refusal(reply), cause: 'phone' };
  }
  const said = octopushError(reply.body);
  if (said) {
    return {
      outcome: 'permanent',
      reason: `Octopush refused the message (HTTP ${reply.status}: ${said}): check the message and the adapter data.`,
      cause: refusalCause(reply.status, reply.body),
    };
  }
  return unexpectedSendReply('Octopush', reply);
}

/** Whose a refusal with an Octopush error body is: its code's, else its HTTP status's. */
function refusalCause(status: number, body: string): RefusalCause {
  const code = (parseJson(body) as { code?: unknown } | null | undefined)?.code;
  return PHONE_CODES.has(String(code)) ? 'phone' : statusRefusalCause(status);
}

/** The JSON object `body` holds, or null when it holds none (an HTML page, a cut answer). */
function jsonObject(body: string): Record<string, unknown> | null {
  const value = parseJson(body);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** A field of a callback, trimmed, from its JSON or form body or its query. */
function read(request: CallbackRequest, name: string): string {
  return (request.form[name] ?? request.query[name] ?? '').trim();
}

/** `date` (ISO 8601, or `YYYY-MM-DD HH:MM:SS` in Paris time) in UTC; null when it is neither. */
function utcDate(date: string): string | null {
  if (!date) {
    return null;
  }
  const iso = DateTime.fromISO(date.replace(' ', 'T'), {
    setZone: true,
    zone: 'Europe/Paris',
  });
  return iso.isValid ? iso.toUTC().toFormat(API_DATETIME_FORMAT) : null;
}
