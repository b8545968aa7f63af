import { OutboundPolicy, OutboundRefusal, outboundRefusalOf } from '../common/net/outbound-policy';
import { describeNetworkError, formatDuration, readBody } from '../common/net/http-answers';
import { Logger } from '@nestjs/common';
import { AdapterData, FieldRefusal, PhoneStatus, RefusalCause, SendResult } from './adapter';

/**
 * What a provider's HTTP API answered, or, in words for the user, why it did not; `refusal`
 * when the outbound policy refused the connection.
 */
export type ProviderReply =
  | { ok: true; status: number; body: string }
  | {
      ok: false;
      reason: string;
      refusal?: OutboundRefusal;
      /**
       * Whether the request may have reached the provider: false only for failures that come
       * before any byte is written (no connection, no name, a TLS certificate refused).
       */
      mayHaveReached: boolean;
    };

export interface ProviderRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Provider answers are small; a larger one is cut rather than held in memory. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The JSON value of a provider's answer, undefined when it is not JSON. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** `value` as an http(s) URL, or null: a provider's address given in a phone's data. */
export function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * The HTTP requests of one provider check. They share one deadline, so a check never outlasts
 * the configured timeout however many requests it makes, and a network failure becomes a
 * sentence instead of an exception: a provider's trouble is the user's to fix, not a 500.
 * Redirects are never followed: a 3xx is the answer.
 */
export class ProviderHttp {
  private readonly signal: AbortSignal;

  /**
   * @param provider its name in sentences ("Twilio").
   * @param location where it is, in sentences: never a URL with credentials in its query.
   * @param outbound for a URL a user gave (not an operator's setting): the policy every
   *   connection to it must pass.
   */
  constructor(
    private readonly provider: string,
    private readonly location: string,
    private readonly timeoutMs: number,
    private readonly outbound?: OutboundPolicy,
  ) {
    this.signal = AbortSignal.timeout(timeoutMs);
  }

  async request(url: string | URL, request: ProviderRequest = {}): Promise<ProviderReply> {
    const init = { ...request, signal: this.signal, redirect: 'manual' as const };
    try {
      const response = this.outbound
        ? await this.outbound.fetch(url, init)
        : await fetch(url, init);
      return { ok: true, status: response.status, body: await readBody(response, MAX_BODY_BYTES) };
    } catch (error) {
      const refusal = outboundRefusalOf(error);
      if (refusal) {
        return {
          ok: false,
          refusal,
          mayHaveReached: false,
          reason: `smsgw does not connect to ${this.provider} at ${this.location}: ${refusal.message}`,
        };
      }
      if (this.signal.aborted) {
        // The connection may have been made and the request written: the provider may have it.
        return {
          ok: false,
          mayHaveReached: true,
          reason: `Could not reach ${this.provider} at ${this.location} within ${formatDuration(this.timeoutMs)}.`,
        };
      }
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? cause.code : undefined;
      return {
        ok: false,
        mayHaveReached: !code || !BEFORE_ANY_REQUEST.has(code),
        reason: `Could not reach ${this.provider} at ${this.location} (${describeNetworkError(code)}).`,
      };
    }
  }
}

/**
 * Network errors that happen before a request is written: no address, no connection, or a TLS
 * handshake refused. Any other (a reset, a socket closed) may come after the provider read it.
 */
const BEFORE_ANY_REQUEST: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Why an HTTP status that no rule of the check expects is a failure, in words for the user. */
export function unexpectedStatus(provider: string, status: number): string {
  if (status >= 500) {
    return `${provider} answered HTTP ${status}: it is failing on its side, try again later.`;
  }
  if (status === 429) {
    return `${provider} answered HTTP 429 (too many requests): try again later.`;
  }
  return `${provider} answered HTTP ${status}, which smsgw does not expect: check the adapter data.`;
}

/** The balance `readBalance` found, or why there is none. */
export type BalanceRead<T> = { balance: T } | { problem: string };

/**
 * The phone checks of a provider whose account-balance request is its credentials check:
 * `test` gives the data's problem, else the balance's; `checkStatus` is unavailable on either
 * (logged), no_credit when `hasCredit` says the balance is spent. Only data without a problem
 * reaches the provider.
 */
export abstract class BalanceCheckedAdapter<T> {
  /** The provider's name in sentences ("Telnyx"). */
  protected abstract readonly provider: string;
  protected abstract readonly logger: Logger;

  /** A missing field, or a value the provider would refuse whatever it is asked. */
  protected abstract dataProblem(data: AdapterData): string | FieldRefusal | null;
  protected abstract balance(data: AdapterData): Promise<BalanceRead<T>>;
  protected abstract hasCredit(balance: T): boolean;

  async test(data: AdapterData): Promise<string | FieldRefusal | null> {
    const problem = this.dataProblem(data);
    if (problem) {
      return problem;
    }
    const read = await this.balance(data);
    return 'problem' in read ? read.problem : null;
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    if (this.dataProblem(data)) {
      return 'unavailable';
    }
    const read = await this.balance(data);
    if ('problem' in read) {
      this.logger.warn(`${this.provider} status check: ${read.problem}`);
      return 'unavailable';
    }
    return this.hasCredit(read.balance) ? 'available' : 'no_credit';
  }
}

/**
 * What a provider's account-balance answer, its credentials check, gives: the balance `read`
 * finds in a 200 answer, or why there is none, in words for the user.
 */
export function readBalance<T>(
  provider: string,
  reply: ProviderReply,
  refusedCredentials: (status: number) => string,
  read: (answer: unknown) => T | undefined,
): BalanceRead<T> {
  if (!reply.ok) {
    return { problem: reply.reason };
  }
  if (reply.status === 401 || reply.status === 403) {
    return { problem: refusedCredentials(reply.status) };
  }
  if (reply.status !== 200) {
    return { problem: unexpectedStatus(provider, reply.status) };
  }
  const balance = read(parseJson(reply.body));
  return balance === undefined
    ? { problem: `${provider} answered without an account balance: try again later.` }
    : { balance };
}

/**
 * Whether a provider's HTTP status says it did not take the message, for now only: 429 (too many
 * requests) and 503 (unavailable), so that sending it again later may work and cannot deliver it
 * twice.
 */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Whether a provider's HTTP status leaves open whether it took the message: a gateway in front
 * of it that timed out or failed (502, 504) after passing the request on.
 */
export function isAmbiguousStatus(status: number): boolean {
  return status === 502 || status === 504;
}

/** The words that end the reason of a send whose outcome is unknown. */
export const MAY_HAVE_BEEN_SENT =
  'The message may have been sent, so it is not sent again: its outcome is unknown.';

/**
 * Whose a refusal with HTTP `status` is when the provider's answer says no more
 * (docs/adapters.md#refusals): 401 (credentials), 402 (payment) and 403 (forbidden) refuse the
 * phone's account; any other status, the message or its recipient.
 */
export function statusRefusalCause(status: number): RefusalCause {
  return status === 401 || status === 402 || status === 403 ? 'phone' : 'recipient';
}

/**
 * The outcome of a send whose reply no rule of the provider's expects:
 * - no answer: permanent, the phone's, when the outbound policy refused it (it will again, for
 *   the provider URL of this phone only); transient when the request certainly never left (no
 *   connection, no name); ambiguous otherwise (a timeout or a connection cut after the request
 *   was written: the provider may have it);
 * - an HTTP status: transient for 429 and 503, ambiguous for a 2xx it cannot read and for 502
 *   and 504, permanent otherwise, with the cause `statusRefusalCause` gives.
 */
export function unexpectedSendReply(provider: string, reply: ProviderReply): SendResult {
  if (!reply.ok) {
    if (reply.refusal) {
      return { outcome: 'permanent', reason: reply.reason, cause: 'phone' };
    }
    return reply.mayHaveReached
      ? { outcome: 'ambiguous', reason: `${reply.reason} ${MAY_HAVE_BEEN_SENT}` }
      : { outcome: 'transient', reason: reply.reason };
  }
  const reason = unexpectedStatus(provider, reply.status);
  if (reply.status >= 200 && reply.status < 300) {
    // A success the adapter cannot read: the provider took something.
    return { outcome: 'ambiguous', reason: `${reason} ${MAY_HAVE_BEEN_SENT}` };
  }
  if (isTransientStatus(reply.status)) {
    return { outcome: 'transient', reason };
  }
  return isAmbiguousStatus(reply.status)
    ? { outcome: 'ambiguous', reason: `${reason} ${MAY_HAVE_BEEN_SENT}` }
    : { outcome: 'permanent', reason, cause: statusRefusalCause(reply.status) };
}

/** A provider's reply that holds an answer. */
export type ProviderAnswer = Extract<ProviderReply, { ok: true }>;

/**
 * A send's reply, for the provider's own rules to read when it holds an answer, else the
 * outcome already known: no answer, by the shared rule (unexpectedSendReply), or a refusal of
 * the credentials (HTTP 401 or 403), the phone's, in `refusedCredentials`'s words.
 */
export function sendAnswer(
  provider: string,
  reply: ProviderReply,
  refusedCredentials: (status: number) => string,
): ProviderAnswer | SendResult {
  if (!reply.ok) {
    return unexpectedSendReply(provider, reply);
  }
  if (reply.status === 401 || reply.status === 403) {
    return { outcome: 'permanent', reason: refusedCredentials(reply.status), cause: 'phone' };
  }
  return reply;
}
