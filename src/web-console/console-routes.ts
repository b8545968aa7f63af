import { HEALTH_PATH, METRICS_PATH } from '../common/http/operator-paths';

/** The folders under BASE_PATH that are not the console's: the API, callbacks, media files. */
const SERVED_ELSEWHERE = ['api', 'callback', 'media'];

/**
 * Whether a GET of `path` answers the console's page: any path under BASE_PATH (client-side
 * routes) except the API's, the callbacks', the media files' and the operators' paths, which
 * keep their own answers, even written `//api/` or `/API/`. A path that does not decode names
 * no page: it keeps its empty 404.
 */
export function isConsoleRoute(path: string, basePath: string): boolean {
  if (!decodes(path)) {
    return false;
  }
  const lower = path.replace(/\/{2,}/g, '/').toLowerCase();
  const base = basePath.toLowerCase();
  if (lower !== base && !lower.startsWith(`${base}/`)) {
    return false;
  }
  // The operators' paths are excluded under BASE_PATH too: a probe pointed there by mistake
  // must get a 404, not the page's 200.
  const excluded = [
    ...SERVED_ELSEWHERE.map((folder) => `${base}/${folder}`),
    ...[HEALTH_PATH, METRICS_PATH].flatMap((path) => [`/${path}`, `${base}/${path}`]),
  ];
  return !excluded.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
