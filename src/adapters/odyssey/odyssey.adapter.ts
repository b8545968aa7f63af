import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
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
  IncomingSms,
  OutgoingSms,
  PhoneStatus,
  SendResult,
  StatusReport,
  field,
  missingRequiredField,
  secretField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  ProviderHttp,
  ProviderReply,
  parseJson,
  statusRefusalCause,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';

/** Where Odyssey Messaging's API is: a local fake for tests. */
export const ODYSSEY_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'ODYSSEY_API_URL',
  default: 'https://api.odyssey-services.fr/api/v1',
};

/** Odyssey's callback `EventType`s smsgw reads. */
const INBOUND_SMS = '8';
const ITEM_STATUS_CHANGED = '9';

/** `/Date(1612345678000+0100)/`, the .NET form of Odyssey's dates: milliseconds since 1970. */
const DOTNET_DATE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;

/** A control character, which no credential holds. */
const CONTROL = /\p{Cc}/u;

/** An Odyssey Messaging account, through its REST API. */
@Injectable()
export class OdysseyMessagingAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'odyssey_messaging',
    alias: 'adapters\\OdysseyMessagingAdapter',
    callbackId: 'odyssey_messaging_adapter',
    name: 'Odyssey Messaging',
    description: 'Sends through the Odyssey Messaging API.',
    fields: [
      field('login', 'Odyssey Messaging API login.', true),
      secretField('password', 'Odyssey Messaging API password.', true),
      field('sender', 'Sender name, 3 to 11 letters or digits; none for the default.', false),
    ],
    hideData: true,
    settings: [ODYSSEY_API_URL],
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };
  private readonly logger = new Logger(OdysseyMessagingAdapter.name);

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const client = this.client(data);
    if (typeof client === 'string') {
      return client;
    }
    const reply = await client('GET', '/JobTypes');
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status !== 200) {
      return refusal(reply);
    }
    // A proxy's or a captive portal's page answers 200 too, and would pass for Odyssey.
    const types = parseJson(reply.body);
    return types !== null && typeof types === 'object'
      ? null
      : 'Odyssey Messaging answered its job types query with something other than its JSON answer: check ODYSSEY_API_URL.';
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem = await this.test(data);
    if (problem) {
      this.logger.warn(`Odyssey Messaging status check: ${problem}`);
    }
    return problem ? 'unavailable' : 'available';
  }

  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const client = this.client(data);
    if (typeof client === 'string') {
      return { outcome: 'permanent', reason: client, cause: 'phone' };
    }
    const sender = data.sender ?? '';
    const reply = await client('POST', '/SMSJobs', {
      JobType: 'SMS',
      Text: sms.text,
      TrackingID: randomUUID(),
      AdhocRecipients: [{ Name: sms.destination, Address: sms.destination.replace(/^\+/, '00') }],
      ...(sender ? { Parameter: { Sender: sender, Media: 1 } } : {}),
    });
    if (!reply.ok || reply.status === 429 || reply.status >= 500) {
      return unexpectedSendReply('Odyssey Messaging', reply);
    }
    if (reply.status === 401 || reply.status === 403) {
      return { outcome: 'permanent', reason: refusal(reply), cause: 'phone' };
    }
    if (reply.status !== 200 && reply.status !== 201) {
      const said = odysseyError(reply.body);
      // Odyssey's refusals carry a sentence but no code: only their status says whose they are.
      return said
        ? {
            outcome: 'permanent',
            reason: `Odyssey Messaging refused the message (HTTP ${reply.status}: ${said}): check the message and the adapter data.`,
            cause: statusRefusalCause(reply.status),
          }
        : unexpectedSendReply('Odyssey Messaging', reply);
    }
    const answer = parseJson(reply.body) as { JobNumber?: unknown } | null | undefined;
    if (answer === null || typeof answer !== 'object') {
      return {
        outcome: 'ambiguous',
        reason: `Odyssey Messaging answered HTTP ${reply.status} with something other than its JSON answer, so the message may have been sent or not: check the jobs in the Odyssey account before sending it again.`,
      };
    }
    const job = answer.JobNumber;
    if ((typeof job !== 'number' && typeof job !== 'string') || !String(job).trim()) {
      return {
        outcome: 'ambiguous',
        reason:
          'Odyssey Messaging accepted the message without giving its job number, so smsgw cannot follow it: check the jobs in the Odyssey account.',
      };
    }
    return { outcome: 'sent', uid: String(job) };
  }

  /**
   * A delivery report as Odyssey posts it (JSON, `EventType` 9, "item status changed"): the
   * `JobNumber` the job got and the item's `Outcome`, S for sent to the handset, B for not yet
   * known, any other letter for a failure.
   */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const uid = read(request, 'JobNumber');
    if (read(request, 'EventType') !== ITEM_STATUS_CHANGED || !uid) {
      return null;
    }
    const outcome = read(request, 'Outcome').toUpperCase();
    const status =
      outcome === 'S' ? 'delivered' : outcome === 'B' || !outcome ? 'unknown' : 'failed';
    return { uid, status };
  }

  /** An inbound SMS as Odyssey posts it (JSON, `EventType` 8): `From`, `Message`, `EventDateTime`. */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const from = read(request, 'From');
    const text = request.form.Message;
    if (read(request, 'EventType') !== INBOUND_SMS || !from || typeof text !== 'string') {
      return null;
    }
    return {
      origin: normalizePhoneNumber(from.replace(/^00/, '+')) ?? from,
      text,
      at: utcDate(read(request, 'EventDateTime')),
    };
  }

  /** A function making requests to Odyssey for one check of `data`, or why there cannot be one. */
  private client(
    data: AdapterData,
  ): ((method: string, path: string, body?: unknown) => Promise<ProviderReply>) | string {
    const problem = missingRequiredField(this.descriptor, data) ?? credentialsProblem(data);
    if (problem) {
      return problem;
    }
    const { settings, timeoutMs } = this.config.providers;
    const apiUrl = settings.url(ODYSSEY_API_URL);
    const http = new ProviderHttp('Odyssey Messaging', apiUrl, timeoutMs);
    const authorization = `Basic ${Buffer.from(`${data.login}:${data.password}`, 'utf8').toString('base64')}`;
    return (method, path, body) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return http.request(`${apiUrl}${path}`, {
        method,
        headers: {
          Accept: 'application/json',
          Authorization: authorization,
          ...(payload ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(payload ? { body: payload } : {}),
      });
    };
  }
}

/** Why `data` cannot be sent to Odyssey, beside a missing field; null when it can. */
function credentialsProblem(data: AdapterData): string | null {
  // Basic authentication ends the login at its first colon.
  if (data.login.includes(':') || CONTROL.test(data.login)) {
    return 'login cannot hold a colon or a control character.';
  }
  if (CONTROL.test(data.password)) {
    return 'password cannot hold a control character.';
  }
  const sender = data.sender ?? '';
  return sender && !/^[A-Za-z0-9]{3,11}$/.test(sender)
    ? 'sender must be 3 to 11 letters or digits.'
    : null;
}

/** Why Odyssey refused a request, for an answer no rule of the check expects. */
function refusal(reply: Extract<ProviderReply, { ok: true }>): string {
  if (reply.status === 401 || reply.status === 403) {
    return `Odyssey Messaging refused the credentials (HTTP ${reply.status}): check login and password.`;
  }
  return unexpectedStatus('Odyssey Messaging', reply.status);
}

/** An excerpt of the `Message` of an Odyssey error answer; empty when it has none. */
function odysseyError(body: string): string {
  const answer = parseJson(body) as { Message?: unknown; message?: unknown } | null | undefined;
  const message = answer?.Message ?? answer?.message;
  return typeof message === 'string' ? excerpt(message) : '';
}

function read(request: CallbackRequest, name: string): string {
  return (request.form[name] ?? request.query[name] ?? '').trim();
}

/** A `/Date(ms±zzzz)/` in UTC; null when `date` is not one. */
function utcDate(date: string): string | null {
  const match = DOTNET_DATE.exec(date);
  if (!match) {
    return null;
  }
  const at = DateTime.fromMillis(Number(match[1]), { zone: 'utc' });
  return at.isValid ? at.toFormat(API_DATETIME_FORMAT) : null;
}
