/** The API's answer, success or failure (docs/api-choices.md). */
interface Envelope<T> {
  error: number;
  message: string | null;
  response: T;
}

/** A failure the API answered: its HTTP status, its error code and its message, to show as is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The API's URL for a path such as `api/login/`: relative to the page's `<base>`, which the
 * server sets to its BASE_PATH, so the console works wherever it is mounted.
 */
export function apiUrl(path: string): string {
  return new URL(path, document.baseURI).href;
}

/** Calls the API and returns its `response`; a failure, or no API answering, throws. */
export async function callApi<T>(path: string, init: RequestInit = {}): Promise<T> {
  let answer: Response;
  try {
    answer = await fetch(apiUrl(path), {
      ...init,
      credentials: 'same-origin',
      headers: { Accept: 'application/json', ...init.headers },
    });
  } catch {
    throw new ApiError(0, 0, 'smsgw cannot be reached: check the connection and try again.');
  }
  let envelope: Envelope<T>;
  try {
    envelope = (await answer.json()) as Envelope<T>;
  } catch {
    throw new ApiError(answer.status, 0, `smsgw answered HTTP ${answer.status} without its JSON.`);
  }
  if (!answer.ok || envelope.error !== 0) {
    throw new ApiError(answer.status, envelope.error, envelope.message ?? `HTTP ${answer.status}`);
  }
  return envelope.response;
}

/** A JSON body for `callApi`. */
export function jsonBody(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
}
