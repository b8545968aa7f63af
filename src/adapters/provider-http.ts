import { SendResult } from './adapter';

/** What a provider's HTTP API answered, or, in words for the user, why it did not. */
export type ProviderReply =
  { ok: true; status: number; body: string } | { ok: false; reason: string };

export interface ProviderRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Provider answers are small; a larger one is cut rather than held in memory. */
const MAX_BODY_BYTES = 1024 * 1024;

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

/** A network error code (`ECONNREFUSED`…) in words. */
export function describeNetworkError(code: string | undefined): string {
  return (code && NETWORK_ERRORS[code]) ?? 'network error';
}

/** `10 s` or `250 ms`, for sentences such as "within 10 s". */
export function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

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
 */
export class ProviderHttp {
  private readonly signal: AbortSignal;

  /**
   * @param provider its name in sentences ("Twilio").
   * @param location where it is, in sentences: never a URL with credentials in its query.
   */
  constructor(
    private readonly provider: string,
    private readonly location: string,
    private readonly timeoutMs: number,
  ) {
    this.signal = AbortSignal.timeout(timeoutMs);
  }

  async request(url: string | URL, request: ProviderRequest = {}): Promise<ProviderReply> {
    try {
      const response = await fetch(url, { ...request, signal: this.signal });
      return { ok: true, status: response.status, body: await readBody(response) };
    } catch (error) {
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

async function readBody(response: Response): Promise<string> {
  if (!response.body) {
    return '';
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
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
 * answer (network trouble, timeout), or an HTTP status it does not handle, transient or not as
 * `isTransientStatus` says.
 */
export function unexpectedSendReply(provider: string, reply: ProviderReply): SendResult {
  if (!reply.ok) {
    return { outcome: 'transient', reason: reply.reason };
  }
  const reason = unexpectedStatus(provider, reply.status);
  return isTransientStatus(reply.status)
    ? { outcome: 'transient', reason }
    : { outcome: 'permanent', reason };
}
