import { Injectable, Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
import { normalizePhoneNumber } from '../../common/phone/phone-number';
import { API_DATETIME_FORMAT } from '../../common/time/datetime';
import { AppConfig } from '../../config/configuration';
import { measureSms } from '../../common/text/gsm';
import { ProviderUrlSetting } from '../../config/provider-settings';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  InboundSink,
  IncomingSms,
  ListenedPhone,
  OutgoingSms,
  PhoneStatus,
  SendResult,
  StatusReport,
  dlrTypeStatus,
  field,
  missingRequiredField,
  secretField,
} from '../adapter';
import { AdapterDataField, AdapterDescriptor } from '../adapter.descriptor';
import {
  ProviderHttp,
  ProviderReply,
  parseJson,
  unexpectedSendReply,
  unexpectedStatus,
} from '../provider-http';
import { excerpt } from '../../common/net/http-answers';
import { pollEvery } from '../poller';
import { OvhClient } from './ovh.client';

/*
 * What the two OVH SMS adapters share: their credentials, the SMS service they send through
 * (`/sms/{service_name}` of the OVH API), and all they do with it but the line a phone sends
 * from (`OvhSmsAdapter`).
 */

export const OVH_SERVICE_FIELDS: AdapterDataField[] = [
  field('service_name', 'OVH SMS service name (sms-xx00000-1).', true),
  field('app_key', 'OVH application key.', true),
  secretField('app_secret', 'OVH application secret.', true),
  secretField('consumer_key', 'OVH consumer key, granted GET and POST on /sms/*.', true),
];

/** Where the OVH API is: another region's (ca.api.ovh.com…), or a local fake for tests. */
export const OVH_API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'OVH_API_URL',
  default: 'https://eu.api.ovh.com/1.0',
};

/** They travel in HTTP headers, which take visible ASCII only. */
const CREDENTIAL = /^[\x21-\x7e]+$/;

/** A client for one check of `data`, or why its credentials cannot be sent. */
function ovhClient(config: AppConfig, data: AdapterData): OvhClient | string {
  return credentialsProblem(data) ?? newClient(config, data);
}

/** Why `data`'s credentials cannot travel in OVH's headers, or null when they can. */
function credentialsProblem(data: AdapterData): string | null {
  const name = ['app_key', 'app_secret', 'consumer_key'].find(
    (candidate) => !CREDENTIAL.test(data[candidate] ?? ''),
  );
  return name ? `${name} must be made of letters, digits and symbols, without spaces.` : null;
}

/** A client for credentials `credentialsProblem` accepts, with a deadline of its own. */
function newClient(config: AppConfig, data: AdapterData): OvhClient {
  const { settings, timeoutMs } = config.providers;
  const ovhApiUrl = settings.url(OVH_API_URL);
  return new OvhClient(
    ovhApiUrl,
    { appKey: data.app_key, appSecret: data.app_secret, consumerKey: data.consumer_key },
    new ProviderHttp('OVH', ovhApiUrl, timeoutMs),
  );
}

/** The API path of the SMS service `serviceName`, or of something below it. */
export function smsPath(serviceName: string, ...below: string[]): string {
  return `/sms/${[serviceName, ...below].map(encodeURIComponent).join('/')}`;
}

/** Null when the SMS service answers to the credentials, else why not. */
async function checkSmsService(client: OvhClient, serviceName: string): Promise<string | null> {
  const reply = await client.request('GET', smsPath(serviceName));
  if (!reply.ok) {
    return reply.reason;
  }
  if (reply.status === 404) {
    return `OVH has no SMS service ${serviceName} for these credentials (HTTP 404): check service_name.`;
  }
  return answered(reply);
}

const NOT_OVH_ANSWER =
  'OVH answered HTTP 200 with something other than its JSON answer: check OVH_API_URL.';

/**
 * Null when OVH answered a check with one of its objects, else why not: a 200 whose body is
 * not JSON (a proxy's page) does not say that the service or the line is there.
 */
function answered(reply: Extract<ProviderReply, { ok: true }>): string | null {
  if (reply.status !== 200) {
    return refusal(reply);
  }
  const answer = parseJson(reply.body);
  return typeof answer === 'object' && answer !== null ? null : NOT_OVH_ANSWER;
}

/** Why OVH refused a request, for an answer no rule of the check expects. */
function refusal(reply: Extract<ProviderReply, { ok: true }>): string {
  if (reply.status === 400) {
    // OVH answers 400 "Invalid signature" when the secret that signed the request is wrong.
    return 'OVH refused the request signature (HTTP 400): check app_secret.';
  }
  if (reply.status === 401 || reply.status === 403) {
    return `OVH refused the credentials (HTTP ${reply.status}): check app_key and consumer_key, and that the consumer key is granted /sms/*.`;
  }
  return unexpectedStatus('OVH', reply.status);
}

/** The state of the SMS service: its credits, or unavailable when it does not answer. */
async function smsServiceStatus(
  config: AppConfig,
  data: AdapterData,
  logger: Logger,
): Promise<Exclude<PhoneStatus, 'disabled'>> {
  const client = ovhClient(config, data);
  if (typeof client === 'string') {
    return 'unavailable';
  }
  const reply = await client.request('GET', smsPath(data.service_name));
  const problem = reply.ok ? answered(reply) : reply.reason;
  if (!reply.ok || problem) {
    logger.warn(`OVH status check: ${problem}`);
    return 'unavailable';
  }
  const credits = (parseJson(reply.body) as { creditsLeft?: unknown }).creditsLeft;
  return typeof credits === 'number' && credits <= 0 ? 'no_credit' : 'available';
}

/**
 * Where one phone's messages go out and come in: the SMS service itself (`/sms/{service}`)
 * or one of its virtual numbers (`/sms/{service}/virtualNumbers/{number}`), both with the
 * same `jobs` and `incoming` below them.
 */
export interface OvhLine {
  path: string;
  /** Why OVH answers 404 for it, in words for the user. */
  notFound: string;
}

/** Where a phone's line is checked when its data are tested, and what a 404 there means. */
export interface LineCheck {
  path: string;
  notFound: string;
}

/**
 * An OVH SMS adapter: the two differ only in the line a phone sends from and receives on, what
 * its data must hold beside the service's credentials, and what a sending job adds.
 */
@Injectable()
export abstract class OvhSmsAdapter implements Adapter {
  abstract readonly descriptor: AdapterDescriptor;
  /** OVH sends a job of class `flash` as a class 0 SMS. */
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };
  protected readonly logger = new Logger(this.constructor.name);

  constructor(protected readonly config: AppConfig) {}

  /** The phone's line. */
  protected abstract line(data: AdapterData): OvhLine;

  /** What `test` asks OVH about the line once the service answers; null: nothing more. */
  protected abstract lineCheck(data: AdapterData): LineCheck | null;

  /** What the sending job holds beside the message, its receiver, coding and class. */
  protected abstract job(data: AdapterData): Record<string, unknown>;

  /** Why the data cannot work whatever OVH says, beside a missing field; null when they can. */
  protected dataProblem(_data: AdapterData): string | null {
    return null;
  }

  async test(data: AdapterData): Promise<string | null> {
    const problem = missingRequiredField(this.descriptor, data) ?? this.dataProblem(data);
    if (problem) {
      return problem;
    }
    const client = ovhClient(this.config, data);
    if (typeof client === 'string') {
      return client;
    }
    const serviceProblem = await checkSmsService(client, data.service_name);
    const check = this.lineCheck(data);
    if (serviceProblem || !check) {
      return serviceProblem;
    }
    const reply = await client.request('GET', check.path);
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 404) {
      return check.notFound;
    }
    return answered(reply);
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    if (missingRequiredField(this.descriptor, data)) {
      return 'unavailable';
    }
    return smsServiceStatus(this.config, data, this.logger);
  }

  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const problem = missingRequiredField(this.descriptor, data) ?? this.dataProblem(data);
    if (problem) {
      return { outcome: 'permanent', reason: problem, cause: 'phone' };
    }
    return sendJob(this.config, data, this.line(data), sms, this.job(data));
  }

  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    return parseOvhStatusCallback(request);
  }

  /** OVH keeps the messages sent to the line until they are read and deleted. */
  listen(phone: ListenedPhone, sink: InboundSink): () => Promise<void> {
    const problem = missingRequiredField(this.descriptor, phone.data);
    if (problem) {
      this.logger.warn(`OVH reception for phone ${phone.id} not started: ${problem}`);
      return () => Promise.resolve();
    }
    return listenToLine(this.config, phone, this.line(phone.data), sink, this.logger);
  }
}

/**
 * Posts one sending job and reads OVH's sending report. OVH takes no per-job callback URL:
 * receipts go to the service's own `callBack` URL, set in the OVH control panel.
 */
async function sendJob(
  config: AppConfig,
  data: AdapterData,
  line: OvhLine,
  sms: OutgoingSms,
  job: Record<string, unknown>,
): Promise<SendResult> {
  const client = ovhClient(config, data);
  if (typeof client === 'string') {
    return { outcome: 'permanent', reason: client, cause: 'phone' };
  }
  const reply = await client.request('POST', `${line.path}/jobs`, {
    message: sms.text,
    receivers: [sms.destination],
    // OVH picks 7-bit or Unicode from the text itself; naming 7-bit only when the text fits
    // it keeps OVH from ever forcing a text that does not into the GSM alphabet.
    ...(measureSms(sms.text).encoding === 'GSM-7' ? { coding: '7bit' } : {}),
    ...(sms.flash ? { class: 'flash' } : {}),
    // Whole minutes before OVH drops the message (2 days when not given); one at least.
    ...(sms.validitySeconds === null
      ? {}
      : { validityPeriod: Math.max(1, Math.floor(sms.validitySeconds / 60)) }),
    ...job,
  });
  if (!reply.ok || reply.status !== 200) {
    return sendRefusal(reply, line);
  }
  const report = parseJson(reply.body) as
    { ids?: unknown; invalidReceivers?: unknown } | null | undefined;
  const invalid = Array.isArray(report?.invalidReceivers) ? report.invalidReceivers : [];
  if (invalid.length > 0) {
    return {
      outcome: 'permanent',
      reason: `OVH refused the receiver ${sms.destination} as invalid: check the number.`,
      cause: 'recipient',
    };
  }
  const id = Array.isArray(report?.ids) ? (report.ids[0] as unknown) : undefined;
  if (typeof id !== 'number' && typeof id !== 'string') {
    return {
      // Taken, so never sent again; without an id no receipt can follow it.
      outcome: 'ambiguous',
      reason:
        'OVH accepted the message without giving its id, so smsgw cannot follow it: check the outgoing messages in the OVH control panel.',
    };
  }
  return { outcome: 'sent', uid: String(id) };
}

/**
 * A 400 of OVH whose message names the phone's own sender or credits ("Sender SMSGW is not
 * validated.", "Not enough credits"): OVH gives no codes, only these sentences.
 */
const PHONE_REFUSAL = /\bsenders?\b|\bcredits?\b/i;

/**
 * The outcome of a sending job OVH did not accept, and whose refusal it is
 * (docs/adapters.md#refusals): the credentials, the signature, the service or line (404), the
 * sender or the credits are the phone's; any other 400 (a receiver or a message OVH does not
 * take) the recipient's.
 */
function sendRefusal(reply: ProviderReply, line: OvhLine): SendResult {
  if (!reply.ok) {
    return unexpectedSendReply('OVH', reply);
  }
  if (reply.status === 401 || reply.status === 403) {
    return {
      outcome: 'permanent',
      reason: `OVH refused the credentials (HTTP ${reply.status}): check app_key, app_secret and consumer_key, and that the consumer key is granted POST on /sms/*.`,
      cause: 'phone',
    };
  }
  if (reply.status === 404) {
    return { outcome: 'permanent', reason: line.notFound, cause: 'phone' };
  }
  if (reply.status === 400) {
    const said = ovhMessage(reply.body);
    const signature = /signature/i.test(said);
    return {
      outcome: 'permanent',
      reason: signature
        ? 'OVH refused the request signature (HTTP 400): check app_secret.'
        : `OVH refused the message (HTTP 400: ${said || 'no reason given'}): check the message and the adapter data.`,
      cause: signature || PHONE_REFUSAL.test(said) ? 'phone' : 'recipient',
    };
  }
  return unexpectedSendReply('OVH', reply);
}

/** An excerpt of the `message` of an OVH error answer. */
function ovhMessage(body: string): string {
  const message = (parseJson(body) as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? excerpt(message) : '';
}

/**
 * A delivery receipt as OVH calls the service's `callBack` URL: query parameters `id` (the
 * id `POST …/jobs` returned) and `dlr`, the delivery state, numbered as Kannel's delivery
 * report types (RaspiSMS reads them so; see dlrTypeStatus).
 */
function parseOvhStatusCallback(request: CallbackRequest): StatusReport | null {
  const read = (name: string) => request.query[name] ?? request.form[name];
  const uid = read('id')?.trim();
  if (!uid) {
    return null;
  }
  return { uid, status: dlrTypeStatus(read('dlr')?.trim()) };
}

/**
 * Polls the line for received messages until the returned function is called: OVH's SMS API
 * cannot push them.
 */
function listenToLine(
  config: AppConfig,
  phone: ListenedPhone,
  line: OvhLine,
  sink: InboundSink,
  logger: Logger,
): () => Promise<void> {
  const stored = new Set<number>();
  return pollEvery(
    config.providers.pollIntervalMs,
    (active) => receiveIncoming(config, phone, line, sink, stored, active, logger),
    logger,
  );
}

/**
 * Asks OVH for the line's received messages, reports each to `sink`, then deletes it at OVH
 * (OVH keeps them otherwise, and has no "unread" mark to filter on). A message is deleted
 * only once the sink has stored it; one stored whose deletion failed is remembered in
 * `stored`, so the next round retries the deletion without reporting it twice.
 */
async function receiveIncoming(
  config: AppConfig,
  phone: ListenedPhone,
  line: OvhLine,
  sink: InboundSink,
  stored: Set<number>,
  active: () => boolean,
  logger: Logger,
): Promise<void> {
  const warn = (what: string, reply: ProviderReply) =>
    logger.warn(
      `OVH reception for phone ${phone.id}: ${what}: ${
        reply.ok ? (reply.status === 404 ? line.notFound : refusal(reply)) : reply.reason
      }`,
    );
  const problem = credentialsProblem(phone.data);
  if (problem) {
    logger.warn(`OVH reception for phone ${phone.id}: ${problem}`);
    return;
  }
  const listed = await newClient(config, phone.data).request('GET', `${line.path}/incoming`);
  if (!listed.ok || listed.status !== 200) {
    warn('listing failed', listed);
    return;
  }
  const ids = parseJson(listed.body);
  if (!Array.isArray(ids)) {
    logger.warn(`OVH reception for phone ${phone.id}: OVH listed no message ids.`);
    return;
  }
  // In id order, so that messages are stored in the order OVH numbered them.
  const numbered = ids.filter((id): id is number => Number.isSafeInteger(id));
  for (const id of stored) {
    if (!numbered.includes(id)) {
      stored.delete(id);
    }
  }
  for (const id of numbered.sort((a, b) => a - b)) {
    if (!active()) {
      return;
    }
    // A client per message: each gets the whole provider timeout, however many came in.
    const client = newClient(config, phone.data);
    const path = `${line.path}/incoming/${id}`;
    if (!stored.has(id)) {
      const detail = await client.request('GET', path);
      if (detail.ok && detail.status === 404) {
        // Deleted since the listing, by another smsgw process or in the OVH control panel.
        continue;
      }
      if (!detail.ok || detail.status !== 200) {
        warn(`reading message ${id} failed`, detail);
        return;
      }
      const sms = incomingSms(parseJson(detail.body));
      if (!sms) {
        logger.warn(`OVH reception for phone ${phone.id}: message ${id} has no text or sender.`);
        continue;
      }
      try {
        await sink.received(phone, sms);
      } catch (error) {
        logger.error(
          `OVH reception for phone ${phone.id}: storing message ${id} failed, it stays at OVH for the next round: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
        return;
      }
      stored.add(id);
    }
    const deleted = await client.request('DELETE', path);
    if (deleted.ok && (deleted.status === 200 || deleted.status === 404)) {
      stored.delete(id);
    } else {
      warn(`deleting stored message ${id} failed, trying again next round`, deleted);
    }
  }
}

/** An OVH `sms.Incoming` as smsgw stores it. */
function incomingSms(value: unknown): IncomingSms | null {
  const { message, sender, creationDatetime } = (value ?? {}) as Record<string, unknown>;
  if (typeof message !== 'string' || typeof sender !== 'string' || !sender.trim()) {
    return null;
  }
  const international = sender.trim().replace(/^00/, '+');
  const received =
    typeof creationDatetime === 'string'
      ? DateTime.fromISO(creationDatetime, { setZone: true })
      : null;
  return {
    origin: normalizePhoneNumber(international) ?? sender.trim(),
    text: message,
    at: received?.isValid ? received.toUTC().toFormat(API_DATETIME_FORMAT) : null,
  };
}
