import { ReadableStream } from 'node:stream/web';

/*
 * Reading what a remote server (a provider, a webhook endpoint) answered, and saying in words
 * for a user what went wrong.
 */

/** How much of a provider's words a message to a user quotes. */
export const MAX_EXCERPT_CHARS = 200;

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

/**
 * A remote server's words (an error text, the `message` of a JSON error) as a message to a
 * user quotes them: one line without control or format characters, at most MAX_EXCERPT_CHARS
 * characters (an ellipsis marks a cut), without a final full stop so that it sits inside a
 * sentence of ours. Answers only ever come from destinations the outbound policy allowed.
 */
export function excerpt(text: string): string {
  const line = text
    .replace(/\p{Cf}/gu, '')
    .replace(/[\s\p{Cc}]+/gu, ' ')
    .trim();
  const characters = [...line];
  const cut =
    characters.length > MAX_EXCERPT_CHARS
      ? `${characters
          .slice(0, MAX_EXCERPT_CHARS - 1)
          .join('')
          .trimEnd()}…`
      : line;
  return cut.replace(/\.$/, '');
}

/** An answer's body as text, cut at `maxBytes` rather than held whole in memory. */
export async function readBody(
  response: { body: ReadableStream<Uint8Array> | null },
  maxBytes: number,
): Promise<string> {
  if (!response.body) {
    return '';
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    chunks.push(value);
    size += value.byteLength;
    if (size >= maxBytes) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
