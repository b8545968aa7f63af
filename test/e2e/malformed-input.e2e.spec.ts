import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { Phone } from '../../src/phones/entities/phone.entity';
import { closedPort } from '../support/adapters.factories';
import { startApp, TestApp } from '../support/app';
import { curlMultipart } from '../support/curl';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';

/*
 * Input that is well-formed HTTP but not well-formed parameters, over real HTTP against the real
 * app: text that is not Unicode, escapes that are not UTF-8, nesting past the bracket syntax,
 * more parameters than MAX_PARAMS, and paths Express cannot decode. Each is INVALID_PARAMETER
 * naming the parameter (never a 500), and nothing is written. Provider callbacks get no
 * envelope but must not fail on the same input either.
 */

const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];
const INVALID = 'You have specified an invalid parameter : ';
const MAX_PARAMS = 50;
const LONE = '\ud800';

function expectInvalid(response: Response, status: number, detail: string | RegExp): void {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
  expect(response.body.error).toBe(2);
  const message = response.body.message as string;
  expect(message.startsWith(INVALID)).toBe(true);
  if (typeof detail === 'string') {
    expect(message.slice(INVALID.length)).toBe(detail);
  } else {
    expect(message.slice(INVALID.length)).toMatch(detail);
  }
}

describeEachDatabase('malformed parameters', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    // Providers' checks must never be reached: nothing listens at these ports.
    const port = await closedPort();
    t = await startApp(database(), {
      MAX_PARAMS: String(MAX_PARAMS),
      TWILIO_API_URL: `http://127.0.0.1:${port}`,
      OVH_API_URL: `http://127.0.0.1:${port}`,
    });
    ds = t.dataSource;
    const made = await makeUser(ds);
    apiKey = made.apiKey;
    userId = made.user.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const phones = () => ds.getRepository(Phone).countBy({ id_user: userId });
  const postJson = (path: string, body: unknown) =>
    request(t.url)
      .post(path)
      .query({ api_key: apiKey })
      .send(body as object);

  describe('text that is not well-formed Unicode (a lone surrogate)', () => {
    it.each([
      [
        'twilio',
        { account_sid: `AC${LONE}`, auth_token: 'token', number: '+33612345678' },
        'adapter_data[account_sid]',
      ],
      [
        'ovh_virtual_number',
        {
          service_name: `sms-${LONE}`,
          app_key: 'k',
          app_secret: 's',
          consumer_key: 'c',
          number: '+33612345678',
        },
        'adapter_data[service_name]',
      ],
    ])(
      'refuses a %s phone whose adapter data holds one with 400, naming the field',
      async (adapter, adapterData, name) => {
        const before = await phones();

        const response = await postJson('/api/phone/', {
          name: 'lone',
          adapter,
          adapter_data: adapterData,
        });

        expectInvalid(
          response,
          400,
          `${name} : the text is not valid Unicode (it holds a lone UTF-16 surrogate).`,
        );
        expect(await phones()).toBe(before);
      },
    );

    it('names a nested JSON value as a form would, and a top-level one by its name', async () => {
      const nested = await postJson('/api/scheduled/', {
        text: 'hello',
        numbers: [{ number: '+33612345678', data: { firstname: `J${LONE}` } }],
      });
      const top = await postJson('/api/scheduled/', {
        text: `a${LONE}b`,
        numbers: ['+33612345678'],
      });

      expectInvalid(
        nested,
        400,
        /^numbers\[0\]\[data\]\[firstname\] : the text is not valid Unicode/,
      );
      expectInvalid(top, 400, /^text : the text is not valid Unicode/);
    });

    it('refuses one escaped in JSON text that a parameter holds as a string', async () => {
      const data = await postJson('/api/scheduled/', {
        text: 'hello',
        numbers: [{ number: '+33612345678', data: '{"firstname":"x\\ud83dy"}' }],
      });
      const adapterData = await postJson('/api/phone/', {
        name: 'escaped',
        adapter: 'test',
        adapter_data: '{"delivery":"\\udc00"}',
      });

      expectInvalid(
        data,
        400,
        'numbers[0][data] : the JSON text is not valid Unicode (it holds a lone UTF-16 surrogate).',
      );
      expectInvalid(
        adapterData,
        400,
        'adapter_data : the JSON text is not valid Unicode (it holds a lone UTF-16 surrogate).',
      );
    });

    it('refuses one in a JSON key, naming the parameter printably', async () => {
      const response = await postJson('/api/phone/', {
        name: 'lone key',
        adapter: 'test',
        adapter_data: { [`x${LONE}`]: 'v' },
      });

      expectInvalid(
        response,
        400,
        'adapter_data[x\ufffd] : the parameter name is not valid Unicode (it holds a lone UTF-16 surrogate).',
      );
    });

    it('refuses one before authentication, as any unreadable request', async () => {
      const response = await request(t.url).post('/api/phone/').send({ name: LONE });

      expectInvalid(response, 400, /^name : the text is not valid Unicode/);
    });
  });

  describe('percent-escapes that are not UTF-8 text', () => {
    it('refuses them in the query string, naming the parameter', async () => {
      const response = await request(t.url).get(`/api/list/phone/?api_key=${apiKey}&tag=caf%E9`);

      expectInvalid(response, 400, /^tag : the value's percent-escapes are not UTF-8 text/);
    });

    it('refuses them in a urlencoded body, naming the parameter, and creates nothing', async () => {
      const before = await phones();

      const response = await request(t.url)
        .post('/api/phone/')
        .query({ api_key: apiKey })
        .type('form')
        .send('name=caf%E9&adapter=test');

      expectInvalid(response, 400, /^name : the value's percent-escapes are not UTF-8 text/);
      expect(await phones()).toBe(before);
    });

    it('keeps a % that starts no escape, as PHP does', async () => {
      const response = await request(t.url)
        .post('/api/phone/')
        .query({ api_key: apiKey })
        .type('form')
        .send('name=100%&adapter=test');

      expect(response.status).toBe(201);
      const [phone] = await ds
        .getRepository(Phone)
        .find({ where: { id_user: userId, name: '100%' } });
      expect(phone).toBeDefined();
    });
  });

  describe('nesting', () => {
    it('refuses brackets nested deeper than 5 levels, naming the parameter', async () => {
      const response = await request(t.url)
        .post('/api/scheduled/')
        .query({ api_key: apiKey })
        .type('form')
        .send('text=hi&numbers[0][data][a][b][c][d]=x');

      expectInvalid(
        response,
        400,
        'numbers[0][data][a][b][c][d] : brackets are nested deeper than 5 levels.',
      );
    });

    it('refuses JSON nested deeper than the same 5 levels, naming the parameter', async () => {
      const response = await postJson('/api/scheduled/', {
        text: 'hi',
        numbers: [{ number: '+33612345678', data: { a: { b: { c: { d: 'x' } } } } }],
      });

      expectInvalid(
        response,
        400,
        'numbers[0][data][a][b][c] : values are nested deeper than 5 levels.',
      );
    });

    it('refuses 1 MiB of nested JSON arrays with 400, not a 500', async () => {
      const depth = 500_000;
      const response = await request(t.url)
        .post('/api/scheduled/')
        .set('Content-Type', 'application/json')
        .send(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`);

      expectInvalid(response, 400, 'a[0][0][0][0][0] : values are nested deeper than 5 levels.');
    });
  });

  describe(`MAX_PARAMS (${MAX_PARAMS} here)`, () => {
    const pairs = (count: number, name = 'numbers[]') =>
      Array.from({ length: count }, (_, i) => `${name}=${i}`).join('&');
    const TOO_MANY = `the request has more than ${MAX_PARAMS} parameters (MAX_PARAMS).`;

    it('refuses a query string over it with 413 error 2, before authentication', async () => {
      const response = await request(t.url).get(`/api/list/phone/?${pairs(MAX_PARAMS + 1)}`);

      expectInvalid(response, 413, TOO_MANY);
    });

    it('refuses a urlencoded body over it with 413 error 2', async () => {
      const response = await request(t.url)
        .post('/api/scheduled/')
        .type('form')
        .send(pairs(MAX_PARAMS + 1));

      expectInvalid(response, 413, TOO_MANY);
    });

    it('refuses multipart fields over it with 413 error 2', async () => {
      const { body, contentType } = curlMultipart(
        Array.from({ length: MAX_PARAMS + 1 }, (_, i) => ({ name: 'numbers[]', value: `${i}` })),
      );

      const response = await request(t.url)
        .post('/api/scheduled/')
        .set('Content-Type', contentType)
        .send(body);

      expectInvalid(response, 413, TOO_MANY);
    });

    it('counts the query string and the body together', async () => {
      const half = Math.ceil((MAX_PARAMS + 1) / 2);

      const response = await request(t.url)
        .post(`/api/scheduled/?${pairs(half, 'contacts[]')}`)
        .type('form')
        .send(pairs(half));

      expectInvalid(response, 413, TOO_MANY);
    });

    // get_me, which takes no parameter, ignores them: get_entries would refuse `x`.
    it('reads a request of exactly MAX_PARAMS parameters', async () => {
      const response = await request(t.url).get(
        `/api/me/?api_key=${apiKey}&${pairs(MAX_PARAMS - 1, 'x[]')}`,
      );

      expect(response.status).toBe(200);
    });
  });

  describe('paths Express cannot decode', () => {
    it.each([
      ['/api/phone/%zz/'],
      ['/api/phone/%E0%A4%A/'],
      ['/api/list/%FF/'],
      ['/API/phone/%zz/'],
    ])('answers %s with 400 error 2 in our words, naming the segment', async (path) => {
      const response = await request(t.url).post(path).query({ api_key: apiKey });
      const segment = path.split('/').find((part) => part.includes('%'));

      expectInvalid(
        response,
        400,
        `the path segment "${segment}" is not valid: each % must start an escape (two hex ` +
          'digits) of UTF-8 text.',
      );
      expect(response.body.message).not.toMatch(/Failed to decode/);
    });

    it.each([
      ['/callback/reception/test/%zz/'],
      ['/callback/status/%zz/'],
      ['/media/%zz/x.png'],
      ['/%zz/API/'],
    ])('answers %s, outside the envelope API, with an empty 404', async (path) => {
      const response = await request(t.url).get(path).query({ api_key: apiKey });

      expect(response.status).toBe(404);
      expect(response.text).toBe('');
    });
  });

  describe('numbers_csv', () => {
    it('refuses a quote that is never closed with 400 naming its line, and creates nothing', async () => {
      const { body, contentType } = curlMultipart([
        { name: 'text', value: 'Hello' },
        { name: 'numbers_csv', value: '0,firstname\n"+33612345678,John\n', filename: 'n.csv' },
      ]);

      const response = await request(t.url)
        .post('/api/scheduled/')
        .query({ api_key: apiKey })
        .set('Content-Type', contentType)
        .send(body);

      expectInvalid(
        response,
        400,
        'csv : line 2 opens a quoted value that is never closed (a " is missing).',
      );
      const listed = await request(t.url).get('/api/list/scheduled/').query({ api_key: apiKey });
      expect(listed.body.response).toEqual([]);
    });
  });

  describe('provider callbacks on the same input: an answer, never a 500', () => {
    const reception = (phoneId: number) =>
      request(t.url).post(`/callback/reception/test/${phoneId}/`).query({ api_key: apiKey });

    it('answers a callback whose path holds an escaped line break without the envelope', async () => {
      const response = await request(t.url)
        .delete('/callback/status/%0D%0A/')
        .query({ api_key: apiKey })
        .set('Content-Type', 'application/x-www-form-urlencoded; charset=bogus')
        .send('a=b');

      expect(response.text).toBe('');
      expect(response.status).toBeLessThan(500);
    });

    it('reads a lone surrogate in a JSON callback as U+FFFD', async () => {
      const phone = await makePhone(ds, userId);

      const response = await reception(phone.id).send({
        origin: '+33612345678',
        text: `a${LONE}b`,
      });

      expect({ status: response.status, body: response.text }).toEqual({ status: 200, body: '' });
      const [stored] = await ds.getRepository(Received).findBy({ id_phone: phone.id });
      expect(stored.text).toBe('a\ufffdb');
    });

    it('reads escapes that are not UTF-8 in its query as U+FFFD', async () => {
      const phone = await makePhone(ds, userId);

      const response = await request(t.url).get(
        `/callback/reception/test/${phone.id}/?api_key=${apiKey}&origin=%2B33612345678&text=caf%E9`,
      );

      expect(response.status).toBe(200);
      const [stored] = await ds.getRepository(Received).findBy({ id_phone: phone.id });
      expect(stored.text).toBe('caf\ufffd');
    });

    it('ignores JSON nested past the bracket depth, even 1 MiB deep', async () => {
      const phone = await makePhone(ds, userId);
      const depth = 500_000;

      const response = await reception(phone.id)
        .set('Content-Type', 'application/json')
        .send(
          `{"origin":"+33612345678","text":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        );

      expect({ status: response.status, body: response.text }).toEqual({ status: 200, body: '' });
      const [stored] = await ds.getRepository(Received).findBy({ id_phone: phone.id });
      expect(stored.text).toBe('deep');
    });

    it('reads the fields of a multipart callback cut short inside a file, and goes on', async () => {
      const phone = await makePhone(ds, userId);

      const response = await reception(phone.id)
        .set('Content-Type', 'multipart/form-data; boundary=X')
        .send(
          '--X\r\nContent-Disposition: form-data; name="origin"\r\n\r\n+33612345678\r\n' +
            '--X\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\nabc',
        );
      const after = await request(t.url).get('/api/list/phone/').query({ api_key: apiKey });

      expect(response.status).toBe(200);
      expect(after.status).toBe(200);
    });
  });
});
