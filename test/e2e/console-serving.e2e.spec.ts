import request, { Response } from 'supertest';
import { startApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/databases';

/*
 * The console (the web interface that `npm run build` builds into dist/console/) as smsgw
 * serves it: its page for every GET outside the API, callbacks, media, health and metrics; its
 * hashed files cached for good; the API's unknown paths still the envelope. (No database is
 * involved, so this runs on SQLite only.)
 */

const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];

/** The console's page, with the headers every answer of it carries. */
function expectPage(response: Response, basePath = ''): void {
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/html; charset=utf-8$/);
  expect(response.headers['cache-control']).toBe('no-cache');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('same-origin');
  const policy = String(response.headers['content-security-policy']);
  expect(policy).toContain("script-src 'self'");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(response.text).toContain(`<base href="${basePath}/">`);
  expect(response.text).toContain('<div id="root"></div>');
}

function expectEnvelope404(response: Response): void {
  expect(response.status).toBe(404);
  expect(response.headers['content-type']).toMatch(/^application\/json\b/);
  expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
  expect(response.body).toMatchObject({ error: 2, response: null });
}

/** The page's scripts: each loaded from a file, none written inline. */
function scriptSources(page: string): string[] {
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  return scripts.map(([, attributes, body]) => {
    expect(body.trim()).toBe('');
    const src = /\bsrc="([^"]+)"/.exec(attributes);
    expect(src).not.toBeNull();
    return (src as RegExpExecArray)[1];
  });
}

/** Where the browser loads a page's script from: its src resolved against the page's <base>. */
function scriptPath(page: string): string {
  const base = /<base href="([^"]+)">/.exec(page)?.[1] ?? '/';
  return new URL(scriptSources(page)[0], `http://host${base}`).pathname;
}

describe('the console, served by smsgw', () => {
  let database: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    t = await startApp(database);
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  it('answers GET / with the page: not cached, its CSP without inline script or eval, never framed', async () => {
    expectPage(await request(t.url).get('/'));
  });

  it.each(['/dashboard', '/messages/sent/42', '/sign-in?next=%2Fsend', '/index.html', '/nope'])(
    'answers the client-side route GET %s with the same page',
    async (path) => {
      const [page, root] = await Promise.all([request(t.url).get(path), request(t.url).get('/')]);

      expectPage(page);
      expect(page.text).toBe(root.text);
    },
  );

  it('answers HEAD of a route with the page’s headers and no body', async () => {
    const response = await request(t.url).head('/dashboard');

    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.text).toBeUndefined();
  });

  it('writes no inline script in the page', async () => {
    const page = await request(t.url).get('/');

    expect(scriptSources(page.text).every((src) => src.startsWith('./assets/'))).toBe(true);
  });

  it('serves the hashed files for a year, immutable', async () => {
    const page = await request(t.url).get('/messages/sent/42');
    const script = await request(t.url).get(scriptPath(page.text));

    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript\b/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers a hashed file that does not exist with 404, not the page', async () => {
    const response = await request(t.url).get('/assets/index-0123abcd.js');

    expect(response.status).toBe(404);
    expect(response.headers['content-type']).not.toMatch(/html/);
  });

  it.each(['/api/nope/', '/api/', '/api', '/API/nope/', '//api/nope/', '/api/list/phone/x/y/z/'])(
    'keeps the envelope’s 404 for the API’s unknown path GET %s',
    async (path) => {
      expectEnvelope404(await request(t.url).get(path));
    },
  );

  it.each(['/callback/status/nope/', '/media/1/x.png', '/health', '/health/ready', '/metrics'])(
    'leaves GET %s to its own route: never the page',
    async (path) => {
      const response = await request(t.url).get(path);

      expect(response.headers['content-type'] ?? '').not.toMatch(/html/);
    },
  );

  it('keeps the empty 404 of a path that does not decode', async () => {
    const response = await request(t.url).get('/messages/%zz');

    expect(response.status).toBe(404);
    expect(response.text).toBe('');
  });

  it.each([
    ['POST', '/'],
    ['POST', '/nope'],
    ['DELETE', '/dashboard'],
    ['PUT', '/assets/x.js'],
  ])('answers %s %s outside the API as before: the envelope’s 404', async (method, path) => {
    const response = await request(t.url)[method.toLowerCase() as 'post'](path);

    expectEnvelope404(response);
    expect(response.body.message).toBe(
      `You have specified an invalid parameter : no operation at ${method} ${path}`,
    );
  });

  describe('under BASE_PATH', () => {
    let mounted: TestApp;

    beforeAll(async () => {
      mounted = await startApp(database, { BASE_PATH: '/raspisms' });
    });
    afterAll(async () => {
      await mounted.close();
    });

    it.each(['/raspisms/', '/raspisms', '/raspisms/messages/sent/42'])(
      'answers GET %s with the page, whose <base> is BASE_PATH',
      async (path) => {
        expectPage(await request(mounted.url).get(path), '/raspisms');
      },
    );

    it('loads the hashed files under BASE_PATH from a deep route', async () => {
      const page = await request(mounted.url).get('/raspisms/messages/sent/42');
      const path = scriptPath(page.text);
      const script = await request(mounted.url).get(path);

      expect(path).toMatch(/^\/raspisms\/assets\/[^/]+\.js$/);
      expect(script.status).toBe(200);
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    });

    it('keeps the envelope’s 404 for the API’s unknown paths and for GETs outside BASE_PATH', async () => {
      expectEnvelope404(await request(mounted.url).get('/raspisms/api/nope/'));
      expectEnvelope404(await request(mounted.url).get('/dashboard'));
      expectEnvelope404(await request(mounted.url).get('/'));
    });
  });
});
