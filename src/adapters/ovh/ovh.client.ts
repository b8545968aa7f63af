import { createHash } from 'node:crypto';
import { ProviderHttp, ProviderReply, unexpectedStatus } from '../provider-http';

export interface OvhCredentials {
  appKey: string;
  appSecret: string;
  consumerKey: string;
}

/**
 * OVH's request signature: "$1$" and the SHA-1 hex digest of the application secret, the
 * consumer key, the method, the full URL, the body and the timestamp, joined with "+".
 */
export function ovhSignature(
  credentials: OvhCredentials,
  method: string,
  url: string,
  body: string,
  timestamp: number,
): string {
  const signed = [
    credentials.appSecret,
    credentials.consumerKey,
    method,
    url,
    body,
    String(timestamp),
  ].join('+');
  return `$1$${createHash('sha1').update(signed).digest('hex')}`;
}

/**
 * Signed requests to the OVH API for one provider check. OVH refuses a timestamp far from its
 * own clock, so the client asks the API for its time once and advances it with the local clock.
 */
export class OvhClient {
  private clockOffset: number | null = null;

  constructor(
    private readonly apiUrl: string,
    private readonly credentials: OvhCredentials,
    private readonly http: ProviderHttp,
    private readonly now: () => number = Date.now,
  ) {}

  /** `path` is below the API URL, e.g. `/sms/sms-ab12345-1`; `body` is sent as JSON. */
  async request(method: string, path: string, body?: unknown): Promise<ProviderReply> {
    const timestamp = await this.timestamp();
    if (typeof timestamp === 'string') {
      // The request itself was never made: only the clock's was.
      return { ok: false, reason: timestamp, mayHaveReached: false };
    }
    const url = `${this.apiUrl}${path}`;
    const payload = body === undefined ? '' : JSON.stringify(body);
    return this.http.request(url, {
      method,
      headers: {
        Accept: 'application/json',
        ...(payload ? { 'Content-Type': 'application/json' } : {}),
        'X-Ovh-Application': this.credentials.appKey,
        'X-Ovh-Consumer': this.credentials.consumerKey,
        'X-Ovh-Timestamp': String(timestamp),
        'X-Ovh-Signature': ovhSignature(this.credentials, method, url, payload, timestamp),
      },
      ...(payload ? { body: payload } : {}),
    });
  }

  /** OVH's current time in seconds, or why it could not be had. */
  private async timestamp(): Promise<number | string> {
    if (this.clockOffset === null) {
      const reply = await this.http.request(`${this.apiUrl}/auth/time`);
      if (!reply.ok) {
        return reply.reason;
      }
      if (reply.status !== 200) {
        return unexpectedStatus('OVH', reply.status);
      }
      const time = Number(reply.body.trim());
      if (!Number.isSafeInteger(time)) {
        return 'OVH answered its time query without a time: try again later.';
      }
      this.clockOffset = time - this.localSeconds();
    }
    return this.localSeconds() + this.clockOffset;
  }

  private localSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
}
