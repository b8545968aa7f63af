import { AppConfig } from '../../config/configuration';
import { ApiRequest } from './request';

/**
 * The absolute base of links the API hands out (`next`, `prev`, callbacks): PUBLIC_URL when set,
 * else the scheme and host the request came to; then BASE_PATH.
 */
export function publicBaseUrl(request: ApiRequest, config: AppConfig): string {
  const origin = config.publicUrl ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
  return origin + config.basePath;
}

/** `base` + `path` with query parameters (undefined ones left out), `api_key` last. */
export function buildLink(
  base: string,
  path: string,
  query: Record<string, string | number | undefined>,
) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) {
      search.set(name, String(value));
    }
  }
  return `${base}${path}?${search.toString()}`;
}
