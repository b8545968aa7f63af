import { AppConfig } from '../../config/configuration';

/** The URLs a phone's provider calls back, carrying the phone's token instead of an API key. */
export interface CallbackUrls {
  /** Delivery receipts. */
  status: string;
  /** Received messages. */
  reception: string;
}

/** The query parameter that carries a phone's callback token (masked in the logs). */
export const CALLBACK_TOKEN_PARAM = 'callback_token';

/**
 * The callback URLs of the phone whose token is `token` (docs/adapters.md#callback-urls): null
 * without PUBLIC_URL, which providers need to reach smsgw, or without a token.
 */
export function callbackUrls(
  config: Pick<AppConfig, 'publicUrl' | 'basePath'>,
  token: string | null,
): CallbackUrls | null {
  if (!config.publicUrl || !token) {
    return null;
  }
  const base = `${config.publicUrl}${config.basePath}/callback/phone`;
  const query = `?${CALLBACK_TOKEN_PARAM}=${encodeURIComponent(token)}`;
  return { status: `${base}/status/${query}`, reception: `${base}/reception/${query}` };
}
