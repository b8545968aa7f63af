import { CallbackUrls } from '../common/http/callback-urls';
import { AdapterDescriptor } from './adapter.descriptor';

/**
 * A phone's status. Adapters report all but `disabled`, which only the phone's owner sets; the
 * phone's row stores it.
 */
export type PhoneStatus = 'available' | 'unavailable' | 'no_credit' | 'limit_reached' | 'disabled';

/** A phone's adapter data: its descriptor's fields, as strings. */
export type AdapterData = Readonly<Record<string, string>>;

/**
 * What smsgw asks of a provider. Each provider is one folder under `src/adapters/` with one
 * class implementing this, listed once in `adapters.module.ts`.
 */
export interface Adapter {
  readonly descriptor: AdapterDescriptor;
  readonly capabilities: AdapterCapabilities;

  /**
   * Checks that the data work with the provider (for provider adapters, a credentials check
   * against its API). Resolves to null when they do, else to why not, in words for the user:
   * a `FieldRefusal` when one field's value is not acceptable whatever the provider says (a
   * destination the outbound policy refuses).
   */
  test(data: AdapterData): Promise<string | FieldRefusal | null>;

  /** The phone's status as the provider reports it. */
  checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>>;

  /**
   * Hands one message to the provider. Never throws: every failure is a `SendResult` whose
   * reason a user can act on. `transient` promises that the provider did not take the message
   * (so sending it again cannot duplicate it) and that trying later may work.
   */
  send(data: AdapterData, sms: OutgoingSms): Promise<SendResult>;

  /**
   * A delivery receipt posted to `/callback/status/{adapter}/`: the provider's uid and the
   * status it reports, or null when the request is not a receipt this adapter understands.
   */
  parseStatusCallback?(request: CallbackRequest): StatusReport | null;

  /**
   * An inbound message posted to `/callback/reception/{adapter}/{id_phone}/`, or null when the
   * request is not one.
   */
  parseReceptionCallback?(request: CallbackRequest): IncomingSms | null;

  /**
   * Whether a callback request really comes from the provider, for providers that sign them
   * (Twilio's `X-Twilio-Signature`), checked with the data of the phone it concerns.
   */
  verifyCallback?(request: CallbackRequest, data: AdapterData): boolean;

  /**
   * For providers whose callbacks are registered through their API rather than given with each
   * message (SMS Gateway for Android's webhooks): points them at the phone's `urls`, replacing
   * what smsgw registered before. Null once done, else why not, in words for the user.
   */
  registerCallbacks?(data: AdapterData, urls: CallbackUrls): Promise<string | null>;

  /**
   * For providers that push receipts and inbound messages over a connection of their own
   * (SMPP) or must be polled for them: starts doing so for one phone, reporting to `sink`,
   * until the returned function is called.
   */
  listen?(phone: ListenedPhone, sink: InboundSink): () => Promise<void>;
}

/** Adapter data refused for the value of one field: the API names it as an invalid parameter. */
export interface FieldRefusal {
  field: string;
  /** Why, in words for the user, to follow the field's name. */
  reason: string;
}

/** What `test` found wrong, as one sentence for logs. */
export function problemText(problem: string | FieldRefusal): string {
  return typeof problem === 'string' ? problem : `${problem.field}: ${problem.reason}`;
}

/** What an adapter can do beyond sending text. */
export interface AdapterCapabilities {
  flash: boolean;
  /**
   * Sends medias as an MMS; otherwise their links are appended to the text
   * (docs/dispatch.md#medias).
   */
  mms: boolean;
  /**
   * `listen()` gets what the provider pushes over this process's own connections (SMPP, whose
   * receipts come back on the session that sent): every worker listens. Otherwise (polling)
   * one worker does, or two would fetch the same messages.
   */
  listensPerProcess?: boolean;
  /**
   * The provider deduplicates sends by `OutgoingSms.idempotencyKey`: an ambiguous outcome is
   * then tried again, with the same key, instead of being recorded `unknown`.
   */
  idempotent?: boolean;
}

export interface OutgoingSms {
  /** E.164. */
  destination: string;
  text: string;
  flash: boolean;
  /** Medias to send as an MMS; only given to adapters whose capabilities include `mms`. */
  medias: ReadonlyArray<{ path: string; mimetype: string | null; url: string }>;
  /**
   * The same on every attempt of one recipient (`smsgw-` and 24 hex characters): for providers
   * that take an idempotency key
   * (capabilities.idempotent), so that a send retried after an ambiguous outcome is not
   * delivered twice.
   */
  idempotencyKey: string;
  /**
   * The phone's own receipt and inbound URLs (docs/adapters.md#callback-urls), for providers
   * that take them with each message; null without PUBLIC_URL.
   */
  callbackUrls: CallbackUrls | null;
  /**
   * Whole seconds left, at hand-over, until the message's validity ends (rounded down; 0 when
   * less than a second is left); null: no limit. Adapters whose provider takes a validity pass
   * it on within the provider's bounds (docs/adapters.md#validity).
   */
  validitySeconds: number | null;
}

export type SendResult =
  /**
   * `status`: the final status, for adapters that know it at once (the `test` adapter); `error`:
   * why, when that status is `failed`.
   */
  | { outcome: 'sent'; uid: string; status?: ReportedStatus; error?: string }
  /** Certainly not taken by the provider (refused connection, 429, 503): may be tried again. */
  | { outcome: 'transient'; reason: string }
  /**
   * Perhaps taken: the request may have reached the provider (no answer in time, a connection
   * cut mid-answer, a 502/504 from its gateway). Recorded `unknown` and never sent again, unless
   * the adapter's capabilities say its provider deduplicates by `idempotencyKey`.
   */
  | { outcome: 'ambiguous'; reason: string }
  /**
   * Refused, and refused again if tried again through this phone. `cause` says whose is the
   * reason (docs/adapters.md#refusals): a refusal for a reason of the phone may be sent through
   * another phone (failover), one of the recipient's may not.
   */
  | { outcome: 'permanent'; reason: string; cause: RefusalCause };

/**
 * `recipient`: the number is invalid or unreachable, blocked, or the content refused: no phone
 * would do better; also a refusal after which the message may have gone out in part, which
 * another phone would repeat. `phone`: its credentials refused, its account out of credit, its
 * sender not allowed, the phone blocked by the provider, a required field of its data missing,
 * transient failures whose retries are used up.
 */
export type RefusalCause = 'recipient' | 'phone';

export type ReportedStatus = 'unknown' | 'delivered' | 'failed';

export interface StatusReport {
  uid: string;
  status: ReportedStatus;
}

export interface IncomingSms {
  /** E.164 when the provider's number parses, else as the provider gave it. */
  origin: string;
  text: string;
  /** UTC `YYYY-MM-DD HH:MM:SS`; null for "now". */
  at: string | null;
}

/** A provider's HTTP callback, as the adapters read it. */
export interface CallbackRequest {
  method: string;
  /** The URL the provider called, as it called it (signatures cover it). */
  url: string;
  /** Lowercased names. */
  headers: Readonly<Record<string, string | undefined>>;
  query: Readonly<Record<string, string>>;
  /** Form or JSON body fields, flattened to strings; empty for other bodies. */
  form: Readonly<Record<string, string>>;
  /** The body as text (Kannel posts the message text as the body). */
  rawBody: string;
}

/** A callback field, from the form (or JSON) the provider posts, else from the query of a GET. */
export function callbackParam(request: CallbackRequest, name: string): string | undefined {
  return request.form[name] ?? request.query[name];
}

/**
 * The report of a status callback that names the message in field `uidField` and its status in
 * field `statusField`, a status the provider names as `statuses` maps it (`unknown` when it is
 * not there); null when either field is missing or empty.
 */
export function fieldsStatusReport(
  request: CallbackRequest,
  uidField: string,
  statusField: string,
  statuses: Readonly<Record<string, ReportedStatus>>,
): StatusReport | null {
  const uid = callbackParam(request, uidField);
  const reported = callbackParam(request, statusField);
  if (!uid || !reported) {
    return null;
  }
  return { uid, status: statuses[reported] ?? 'unknown' };
}

/**
 * The status a delivery report type in Kannel's numbering says (the `%d` of Kannel's dlr-url;
 * OVH numbers its `dlr` the same): 1 delivered to the phone, 2 not delivered to it, 16 refused
 * by the SMSC or the network. Any other type (4 queued on the SMSC, 8 delivered to it) is an
 * intermediate state.
 */
export function dlrTypeStatus(type: string | undefined): ReportedStatus {
  return type === '1' ? 'delivered' : type === '2' || type === '16' ? 'failed' : 'unknown';
}

export interface ListenedPhone {
  id: number;
  id_user: number;
  data: AdapterData;
}

/** Where listening adapters report what their provider pushes. */
export interface InboundSink {
  status(phone: ListenedPhone, report: StatusReport): Promise<void>;
  received(phone: ListenedPhone, sms: IncomingSms): Promise<void>;
}

/** A descriptor field, `number` set when its value must be a valid phone number. */
export const field = (name: string, description: string, required: boolean, number = false) => ({
  name,
  description,
  required,
  ...(number ? { number: true } : {}),
});

/** A descriptor field holding a credential (see `AdapterDataField.secret`). */
export const secretField = (name: string, description: string, required: boolean) => ({
  ...field(name, description, required),
  secret: true,
});

/**
 * The first required field of `descriptor` that `data` leaves empty, as a sentence; null when
 * none is. Providers check it before any network call so a partial entry never reaches them.
 */
export function missingRequiredField(
  descriptor: AdapterDescriptor,
  data: AdapterData,
): string | null {
  const missing = descriptor.fields.find(
    (candidate) => candidate.required && !String(data[candidate.name] ?? '').trim(),
  );
  return missing ? `${missing.name} is required.` : null;
}
