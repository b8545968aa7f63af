import { createServer, IncomingMessage } from 'node:http';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import request from 'supertest';
import { REDACTED_PATHS, pinoHttpOptions, redactUrl, requestIdOf } from './logging.module';

const KEY = '0123456789abcdef0123456789abcdef';

/** A destination that keeps every JSON line pino writes, and tells when one arrives. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const text: string[] = [];
  let arrived: () => void = () => undefined;
  const firstLine = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  return {
    lines,
    text,
    firstLine,
    stream: {
      write(line: string) {
        text.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
        arrived();
      },
    },
  };
}

describe('redactUrl', () => {
  it.each([
    [`/api/list/phone/?api_key=${KEY}`, '/api/list/phone/?api_key=[Redacted]'],
    [
      `/api/list/phone/?page=1&api_key=${KEY}&x=2`,
      '/api/list/phone/?page=1&api_key=[Redacted]&x=2',
    ],
    [`/api/list/phone/?API_KEY=${KEY}`, '/api/list/phone/?API_KEY=[Redacted]'],
    [`/api/list/phone/?api_key=${KEY}#top`, '/api/list/phone/?api_key=[Redacted]#top'],
    [`/a/?api_key=${KEY}&api_key=${KEY}`, '/a/?api_key=[Redacted]&api_key=[Redacted]'],
  ])('masks the key in %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it.each([
    [`/api/list/phone/?api%5Fkey=${KEY}`, '/api/list/phone/?api%5Fkey=[Redacted]'],
    [`/api/list/phone/?api%5fkey=${KEY}`, '/api/list/phone/?api%5fkey=[Redacted]'],
    [`/api/list/phone/?api_key[]=${KEY}`, '/api/list/phone/?api_key[]=[Redacted]'],
    [`/api/list/phone/?api_key%5B0%5D=${KEY}`, '/api/list/phone/?api_key%5B0%5D=[Redacted]'],
  ])('masks the key under a name the query parser also reads as api_key: %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('leaves other parameters, look-alike names and paths alone', () => {
    expect(redactUrl('/api/list/phone/?page=2&my_api_key=1&api_keys=2')).toBe(
      '/api/list/phone/?page=2&my_api_key=1&api_keys=2',
    );
    expect(redactUrl('/api/list/api_key=x/')).toBe('/api/list/api_key=x/');
    expect(redactUrl('/api/list/phone/')).toBe('/api/list/phone/');
  });

  it('copes with a malformed escape in a name', () => {
    expect(redactUrl(`/a/?%E0%A4%A=1&api_key=${KEY}`)).toBe('/a/?%E0%A4%A=1&api_key=[Redacted]');
  });

  it('keeps undefined as undefined', () => {
    expect(redactUrl(undefined)).toBeUndefined();
  });
});

describe('REDACTED_PATHS in a pino logger', () => {
  function log(object: Record<string, unknown>): string {
    const out = capture();
    pino({ redact: { paths: REDACTED_PATHS, censor: '[Redacted]' } }, out.stream).info(object, 'x');
    return out.text.join('');
  }

  it('redacts the X-Api-Key header of a logged request', () => {
    const line = log({ req: { method: 'GET', headers: { 'x-api-key': KEY, host: 'h' } } });

    expect(line).not.toContain(KEY);
    expect(JSON.parse(line).req.headers).toEqual({ 'x-api-key': '[Redacted]', host: 'h' });
  });

  it('redacts headers logged on their own and authorization and cookies of a request', () => {
    const line = log({
      headers: { 'x-api-key': KEY },
      req: { headers: { authorization: `Bearer ${KEY}`, cookie: `raspisms=${KEY}` } },
    });

    expect(line).not.toContain(KEY);
  });

  it('redacts api_key in a logged body or query, and at the top level', () => {
    const line = log({ body: { api_key: KEY, text: 'hello' }, query: { api_key: KEY } });
    const top = log({ api_key: KEY });

    expect(line).not.toContain(KEY);
    expect(JSON.parse(line).body).toEqual({ api_key: '[Redacted]', text: 'hello' });
    expect(JSON.parse(top).api_key).toBe('[Redacted]');
  });

  it('redacts adapter data and provider secrets', () => {
    const secret = 'provider-secret-value';
    const line = log({
      phone: { name: 'twilio', adapter_data: JSON.stringify({ auth_token: secret }) },
      twilio: { account_sid: 'AC1', auth_token: secret },
      kannel: { username: 'u', password: secret },
      ovh: { app_key: 'k', app_secret: secret, consumer_key: secret },
      adapter_data: { password: secret },
    });

    expect(line).not.toContain(secret);
    const logged = JSON.parse(line);
    expect(logged.phone).toEqual({ name: 'twilio', adapter_data: '[Redacted]' });
    expect(logged.twilio.account_sid).toBe('AC1');
    expect(logged.kannel.username).toBe('u');
  });
});

describe('requestIdOf', () => {
  const withHeader = (value: string | string[] | undefined) =>
    ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as IncomingMessage;
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  it('takes a sane X-Request-Id as it is', () => {
    expect(requestIdOf(withHeader('abc-123'))).toBe('abc-123');
    expect(requestIdOf(withHeader('trace.42_x'))).toBe('trace.42_x');
  });

  it.each([
    [undefined],
    [''],
    ['a b'],
    ['<script>'],
    ['x'.repeat(65)],
    ['id\nforged log line'],
    [['a', 'b']],
  ])('makes a new UUID when X-Request-Id is %p', (value) => {
    expect(requestIdOf(withHeader(value))).toMatch(UUID);
  });
});

describe('pinoHttpOptions, on a real HTTP request', () => {
  it('logs the request id, the method and the URL with the key masked, and no headers', async () => {
    const out = capture();
    const logger = pinoHttp({ ...pinoHttpOptions('info'), stream: out.stream });
    const server = createServer((req, res) => {
      logger(req, res);
      res.end('ok');
    });

    await request(server)
      .get(`/api/list/phone/?api_key=${KEY}&page=1`)
      .set('X-Api-Key', KEY)
      .set('X-Request-Id', 'abc-123')
      .expect(200);
    await out.firstLine;

    expect(out.text.join('')).not.toContain(KEY);
    expect(out.lines[0].req).toEqual({
      id: 'abc-123',
      method: 'GET',
      url: '/api/list/phone/?api_key=[Redacted]&page=1',
    });
  });

  it('logs nothing at the silent level', async () => {
    const out = capture();
    const logger = pinoHttp({ ...pinoHttpOptions('silent'), stream: out.stream });
    const server = createServer((req, res) => {
      logger(req, res);
      req.log.error('an error that must not be written');
      res.end('ok');
    });

    await request(server).get('/').expect(200);

    expect(out.text).toEqual([]);
  });
});
