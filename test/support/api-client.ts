import request, { Test } from 'supertest';

/*
 * The API as one caller reaches it over HTTP, for the e2e specs: every request carries the
 * caller's key, so a spec says what it sends and not how it authenticates. Requests come back
 * unsent (supertest's `Test`): a spec adds fields, files or headers, then awaits the response
 * and asserts its envelope with test/support/envelope.ts.
 */

/**
 * Where the key travels: the `X-Api-Key` header, or the `api_key` query parameter (the form
 * the RaspiSMS examples use). Both reach the same guard; a spec keeps the one it tests.
 */
export type KeySource = 'header' | 'query';

type Query = Record<string, unknown>;

export class ApiClient {
  constructor(
    private readonly url: string,
    private readonly apiKey: string,
    private readonly source: KeySource = 'header',
  ) {}

  /** GET `path`, with `query` beside the key. */
  get(path: string, query: Query = {}): Test {
    return this.authenticate(request(this.url).get(path), query);
  }

  /** POST `path` as a urlencoded form: `.send()` the fields. */
  form(path: string): Test {
    return this.post(path).type('form');
  }

  /** POST `body` to `path` as JSON (a string goes as it is: a test's own bytes). */
  json(path: string, body: unknown): Test {
    return this.post(path)
      .type('json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** POST `path` with nothing chosen yet: a multipart body (`.field()`, `.attach()`) or no body. */
  post(path: string): Test {
    return this.authenticate(request(this.url).post(path));
  }

  delete(path: string): Test {
    return this.authenticate(request(this.url).delete(path));
  }

  /** The entries get_entries lists (`/api/list/<type>/`), the first page. */
  async list<T = Record<string, unknown>>(type: string, query: Query = {}): Promise<T[]> {
    const response = await this.get(`/api/list/${type}/`, query);
    return (response.body as { response: T[] }).response;
  }

  /** The entry `id` as get_entries lists it, if it is on the first page. */
  async listed<T extends { id: number } = { id: number } & Record<string, unknown>>(
    type: string,
    id: number,
  ): Promise<T | undefined> {
    return (await this.list<T>(type)).find((entry) => entry.id === id);
  }

  private authenticate(test: Test, query: Query = {}): Test {
    if (this.source === 'query') {
      return test.query({ api_key: this.apiKey, ...query });
    }
    const keyed = test.set('X-Api-Key', this.apiKey);
    return Object.keys(query).length > 0 ? keyed.query(query) : keyed;
  }
}

/** The API as the owner of `apiKey` calls it on `app` (a started test app, or any base URL). */
export function api(
  app: { url: string } | string,
  apiKey: string,
  source: KeySource = 'header',
): ApiClient {
  return new ApiClient(typeof app === 'string' ? app : app.url, apiKey, source);
}
