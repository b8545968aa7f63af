import { OutboundPolicy, OutboundRefusal, outboundRefusalOf } from '../common/net/outbound-policy';
import { describeNetworkError, formatDuration, readBody } from '../common/net/http-answers';
import { SendResult } from './adapter';

/**
 * What a provider's HTTP API answered, or, in words for the user, why it did not; `refusal`
 * when the outbound policy refused the connection.
 */
export type ProviderReply =
  | { ok: true; status: number; body: string }
  | { ok: false; reason: string; refusal?: OutboundRefusal };

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
          reason: `smsgw does not connect to ${this.provider} at ${this.location}: ${refusal.message}`,
        };
      }
      return { ok: false, reason: this.failure(error) };
    }
  }

  private failure(error: unknown): string {
    if (this.signal.aborted) {
      return `Could not reach ${this.provider} at ${this.location} within ${formatDuration(this.timeoutMs)}.`;
    }
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    return `Could not reach ${this.provider} at ${this.location} (${describeNetworkError(code)}).`;
  }
}

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

/**
 * Whether a provider's HTTP status refuses one message for now only (429, 5xx), so that sending
 * it again later may work, rather than for good.
 */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * The outcome of a send whose reply no rule of the provider's expects: the request never got an
 * answer (network trouble, timeout: transient; the outbound policy refused it: permanent, as
 * it will refuse it again), or an HTTP status it does not handle, transient or not as
 * `isTransientStatus` says.
 */
export function unexpectedSendReply(provider: string, reply: ProviderReply): SendResult {
  if (!reply.ok) {
    return { outcome: reply.refusal ? 'permanent' : 'transient', reason: reply.reason };
  }
  const reason = unexpectedStatus(provider, reply.status);
  return isTransientStatus(reply.status)
    ? { outcome: 'transient', reason }
    : { outcome: 'permanent', reason };
}
