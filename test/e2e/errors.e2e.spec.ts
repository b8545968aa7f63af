import request, { Response } from 'supertest';
import { describeEachDatabase } from '../support/databases';
import { startApp, TestApp } from '../support/app';
import { makePhone, makeUser } from '../support/factories';

const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];

/**
 * The failure envelope (docs/api-choices.md): JSON, exactly these keys in this order, no result.
 */
function expectFailure(response: Response, status: number, error: number): string {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json\b/);
  expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
  expect(response.body).toMatchObject({ error, response: null, next: null, prev: null });
  expect(typeof response.body.message).toBe('string');
  return response.body.message as string;
}

describeEachDatabase('failure envelope', (database) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startApp(database());
    ({ apiKey } = await makeUser(t.dataSource));
  });
  afterAll(async () => {
    await t.close();
  });

  it('wraps a success in the same envelope, JSON with the keys in order', async () => {
    const response = await request(t.url).get('/api/list/phone/').query({ api_key: apiKey });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json\b/);
    expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
    expect(response.body).toEqual({
      error: 0,
      message: null,
      response: [],
      next: null,
      prev: null,
    });
  });

  describe('unknown paths and methods: HTTP 404, error 2', () => {
    it.each([
      // A GET outside /api/ answers the console's page (console-serving.e2e.spec.ts).
      ['/api/nope/'],
      ['/api/'],
      ['/api/list/'],
      ['/api/list/phone/x/y/z/'],
    ])('answers GET %s with 404 error 2 naming the method and path', async (path) => {
      const response = await request(t.url).get(path).query({ api_key: apiKey });

      expect(expectFailure(response, 404, 2)).toBe(
        `You have specified an invalid parameter : no operation at GET ${path}`,
      );
    });

    it.each([['DELETE'], ['POST'], ['PUT'], ['PATCH'], ['OPTIONS']])(
      'answers %s on the known GET path /api/list/phone/ with 404 error 2',
      async (method) => {
        const response = await request(t.url)
          [method.toLowerCase() as 'delete']('/api/list/phone/')
          .query({ api_key: apiKey });

        expect(expectFailure(response, 404, 2)).toBe(
          `You have specified an invalid parameter : no operation at ${method} /api/list/phone/; this path serves GET`,
        );
      },
    );

    it.each([
      ['POST', '/api/send-sms/', 'GET'],
      ['GET', '/api/phone/', 'POST'],
      ['PUT', '/api/scheduled/7/', 'GET, POST, DELETE'],
      ['PATCH', '/api/scheduled/7', 'GET, POST, DELETE'],
      ['GET', '/api/phone/7/status/', 'POST'],
    ])(
      'answers %s %s, a known path, with 404 error 2 naming the methods it serves, also in Allow',
      async (method, path, served) => {
        const response = await request(t.url)
          [method.toLowerCase() as 'get'](path)
          .query({ api_key: apiKey });

        expect(expectFailure(response, 404, 2)).toBe(
          `You have specified an invalid parameter : no operation at ${method} ${path}; this path serves ${served}`,
        );
        expect(response.headers.allow).toBe(served);
      },
    );

    it('names no method and sends no Allow header for a path that nothing serves', async () => {
      const response = await request(t.url).post('/api/send-sms/x/').query({ api_key: apiKey });

      expect(expectFailure(response, 404, 2)).toBe(
        'You have specified an invalid parameter : no operation at POST /api/send-sms/x/',
      );
      expect(response.headers.allow).toBeUndefined();
    });

    it('names the methods of a path under BASE_PATH, and none outside it', async () => {
      const mounted = await startApp(database(), { BASE_PATH: '/raspisms' });
      try {
        const inside = await request(mounted.url).post('/raspisms/api/send-sms/');
        expect(expectFailure(inside, 404, 2)).toBe(
          'You have specified an invalid parameter : no operation at POST /raspisms/api/send-sms/; this path serves GET',
        );
        expect(inside.headers.allow).toBe('GET');

        const outside = await request(mounted.url).post('/api/send-sms/');
        expect(expectFailure(outside, 404, 2)).toBe(
          'You have specified an invalid parameter : no operation at POST /api/send-sms/',
        );
      } finally {
        await mounted.close();
      }
    });

    it('answers an unknown route with 404 before authentication: no key still gives 404, not 401', async () => {
      expectFailure(await request(t.url).delete('/api/list/phone/'), 404, 2);
      expectFailure(await request(t.url).get('/api/nope/'), 404, 2);
    });
  });

  describe('unreadable requests: HTTP 400, error 2, before routing and authentication', () => {
    it('refuses a malformed JSON body with 400 error 2, on a known path without a key too', async () => {
      for (const path of ['/api/list/phone/', '/api/nope/']) {
        const response = await request(t.url)
          .post(path)
          .set('Content-Type', 'application/json')
          .send('{"text": "hello",');

        expect(expectFailure(response, 400, 2)).toBe(
          'You have specified an invalid parameter : the JSON body is not valid JSON.',
        );
      }
    });

    it('refuses a malformed JSON body sent with GET to an existing route, before the key is checked', async () => {
      const response = await request(t.url)
        .get('/api/list/phone/')
        .query({ api_key: apiKey })
        .set('Content-Type', 'application/json')
        .send('{bad');

      expectFailure(response, 400, 2);
    });

    it.each([['[1, 2]'], ['"text"'], ['42'], ['null']])(
      'refuses a JSON body that is not an object of parameters (%s) with 400 error 2',
      async (body) => {
        const response = await request(t.url)
          .post('/api/list/phone/')
          .set('Content-Type', 'application/json')
          .send(body);

        expect(expectFailure(response, 400, 2)).toBe(
          'You have specified an invalid parameter : the JSON body must be an object of parameters.',
        );
      },
    );

    it('refuses a body in a charset other than UTF-8 with 400 error 2', async () => {
      const response = await request(t.url)
        .post('/api/list/phone/')
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{}');

      expectFailure(response, 400, 2);
    });

    it('refuses a malformed multipart body with 400 error 2', async () => {
      const response = await request(t.url)
        .post('/api/list/phone/')
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="text"\r\n\r\nunterminated');

      expect(expectFailure(response, 400, 2)).toMatch(
        /^You have specified an invalid parameter : the multipart body is malformed/,
      );
    });

    it('refuses a malformed percent escape in the path with 400 error 2', async () => {
      const response = await request(t.url).get('/api/list/%E0%A4%A/').query({ api_key: apiKey });

      expect(expectFailure(response, 400, 2)).toMatch(
        /^You have specified an invalid parameter : /,
      );
    });
  });
});

describeEachDatabase('size limits (HTTP 413)', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(database(), {
      MAX_BODY_BYTES: '2048',
      MAX_FILE_BYTES: '4096',
      MAX_CSV_BYTES: '8192',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  // Bodies are read by a middleware before routing, so a POST to the GET-only path
  // /api/list/phone/ shows the limit: over it, 413; under it, the body is read and the
  // request goes on to routing, which answers 404 (no POST operation there).
  const post = () => request(t.url).post('/api/list/phone/');
  const TOO_LARGE = 'You have specified an invalid parameter : the request body is too large.';

  it('refuses a urlencoded body over MAX_BODY_BYTES with 413 error 2', async () => {
    const response = await post()
      .type('form')
      .send(`text=${'x'.repeat(3000)}`);

    expect(expectFailure(response, 413, 2)).toBe(TOO_LARGE);
  });

  it('refuses a JSON body over MAX_BODY_BYTES with 413 error 2', async () => {
    const response = await post()
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(3000) }));

    expect(expectFailure(response, 413, 2)).toBe(TOO_LARGE);
  });

  it('refuses an oversized body before authentication: no key still gives 413', async () => {
    const response = await request(t.url)
      .get('/api/list/phone/')
      .type('form')
      .send(`text=${'x'.repeat(3000)}`);

    expectFailure(response, 413, 2);
  });

  it('reads bodies under MAX_BODY_BYTES and goes on to routing (404 error 2 here)', async () => {
    const form = await post()
      .type('form')
      .send(`text=${'x'.repeat(1500)}`);
    const json = await post()
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(1500) }));

    expectFailure(form, 404, 2);
    expectFailure(json, 404, 2);
  });

  it('refuses a multipart text field over MAX_BODY_BYTES with 413 error 2 naming the field', async () => {
    const response = await post().field('text', 'x'.repeat(3000));

    expect(expectFailure(response, 413, 2)).toBe(
      'You have specified an invalid parameter : text : the value is too large.',
    );
  });

  it('refuses multipart fields that together exceed MAX_BODY_BYTES, each one being small', async () => {
    let form = post();
    for (let index = 0; index < 30; index += 1) {
      form = form.field(`numbers[${index}]`, 'x'.repeat(100));
    }

    expect(expectFailure(await form, 413, 2)).toBe(
      'You have specified an invalid parameter : the form fields are too large.',
    );
  });

  it('refuses an uploaded file over MAX_FILE_BYTES with 413 error 64 naming the field', async () => {
    const response = await post()
      .field('text', 'hello')
      .attach('medias[]', Buffer.alloc(5000, 1), 'picture.png');

    expect(expectFailure(response, 413, 64)).toBe(
      'Failed to upload or save an uploaded file : medias : the file is larger than 4096 bytes.',
    );
  });

  it('allows numbers_csv up to MAX_CSV_BYTES, above MAX_FILE_BYTES', async () => {
    const response = await post().attach('numbers_csv', Buffer.alloc(6000, 49), 'numbers.csv');

    expectFailure(response, 404, 2);
  });

  it('refuses numbers_csv over MAX_CSV_BYTES with 413 error 64 naming the field', async () => {
    const response = await post().attach('numbers_csv', Buffer.alloc(9000, 49), 'numbers.csv');

    expect(expectFailure(response, 413, 64)).toMatch(
      /^Failed to upload or save an uploaded file : numbers_csv : /,
    );
  });
});

describeEachDatabase('unexpected failure (HTTP 500, error 256)', (database) => {
  let t: TestApp;
  let apiKey: string;

  beforeAll(async () => {
    t = await startApp(database());
    const made = await makeUser(t.dataSource);
    apiKey = made.apiKey;
    await makePhone(t.dataSource, made.user.id);
    // A real failure inside the operation: the table it reads is gone. MariaDB refuses to drop
    // a table other tables point to unless foreign key checks are off on that connection.
    const runner = t.dataSource.createQueryRunner();
    try {
      if (database().kind === 'mariadb') {
        await runner.query('SET FOREIGN_KEY_CHECKS = 0');
      }
      await runner.query('DROP TABLE phone');
      if (database().kind === 'mariadb') {
        await runner.query('SET FOREIGN_KEY_CHECKS = 1');
      }
    } finally {
      await runner.release();
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const listPhones = () => request(t.url).get('/api/list/phone/').query({ api_key: apiKey });

  it('answers with HTTP 500, error 256 and a message carrying a request id', async () => {
    const message = expectFailure(await listPhones(), 500, 256);

    expect(message).toMatch(
      /^Internal error\. Request id: [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}; the server log holds the details\.$/,
    );
  });

  it('never shows the database’s text, the table or the SQL', async () => {
    const message = expectFailure(await listPhones(), 500, 256);

    for (const internal of [
      'phone',
      'SELECT',
      'FROM',
      'table',
      'SQLITE',
      'ER_',
      'exist',
      'QueryFailedError',
      ' at ',
    ]) {
      expect(message.toLowerCase()).not.toContain(internal.toLowerCase());
    }
  });

  it('uses the caller’s X-Request-Id as the request id', async () => {
    const response = await listPhones().set('X-Request-Id', 'abc-123');

    expect(response.headers['x-request-id']).toBe('abc-123');
    expect(expectFailure(response, 500, 256)).toBe(
      'Internal error. Request id: abc-123; the server log holds the details.',
    );
  });

  it('does not echo an X-Request-Id that is not a sane id, and gives each request its own id', async () => {
    const odd = expectFailure(await listPhones().set('X-Request-Id', '<b>hi</b> there'), 500, 256);
    const first = expectFailure(await listPhones(), 500, 256);
    const second = expectFailure(await listPhones(), 500, 256);

    expect(odd).not.toContain('<b>');
    expect(odd).toMatch(/Request id: [0-9a-f-]{36};/);
    expect(first).not.toBe(second);
  });

  it('still authenticates first: a broken operation is never reached without a key', async () => {
    const response = await request(t.url).get('/api/list/phone/');

    expectFailure(response, 401, 1);
  });
});
