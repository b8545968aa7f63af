import { excerpt } from '../../common/net/http-answers';
import { ProviderHttp, ProviderReply, parseJson } from '../provider-http';

export interface OctopushCredentials {
  login: string;
  apiKey: string;
}

/** They travel in HTTP headers, which take visible ASCII only. */
const HEADER_VALUE = /^[\x21-\x7e]+$/;

/** Why `credentials` cannot travel in Octopush's headers, or null when they can. */
export function octopushCredentialsProblem(credentials: OctopushCredentials): string | null {
  if (!HEADER_VALUE.test(credentials.login)) {
    return 'login must be made of letters, digits and symbols, without spaces.';
  }
  return HEADER_VALUE.test(credentials.apiKey)
    ? null
    : 'api_key must be made of letters, digits and symbols, without spaces.';
}

/**
 * Requests to Octopush's public API (v1) for one provider check: JSON both ways, the account
 * named by the `api-login` and `api-key` headers on every request.
 */
export class OctopushClient {
  constructor(
    private readonly apiUrl: string,
    private readonly credentials: OctopushCredentials,
    private readonly http: ProviderHttp,
  ) {}

  /** `path` is below the API URL, e.g. `/wallet/check-balance`; `body` is sent as JSON. */
  request(method: string, path: string, body?: unknown): Promise<ProviderReply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return this.http.request(`${this.apiUrl}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        ...(payload ? { 'Content-Type': 'application/json' } : {}),
        'api-login': this.credentials.login,
        'api-key': this.credentials.apiKey,
      },
      ...(payload ? { body: payload } : {}),
    });
  }
}

/**
 * What an Octopush error answer says: its `code` and `message`, as "message (code N)", cut to
 * an excerpt; empty when the answer is not one (an HTML page from a proxy, say).
 */
export function octopushError(body: string): string {
  const answer = parseJson(body) as { code?: unknown; message?: unknown } | null | undefined;
  const message = typeof answer?.message === 'string' ? excerpt(answer.message) : '';
  const code =
    typeof answer?.code === 'number' || typeof answer?.code === 'string'
      ? excerpt(String(answer.code))
      : '';
  if (message && code) {
    return `${message} (code ${code})`;
  }
  return message || (code ? `code ${code}` : '');
}
