import { createServer, IncomingMessage } from 'node:http';
import { pinoHttp } from 'pino-http';
import request from 'supertest';
import { SECRET_NAMES, pinoHttpOptions, requestIdOf, serializeError } from './logging.module';
import { Redactor } from './redaction';

const KEY = '0123456789abcdef0123456789abcdef';
const SECRET = 'provider-secret-value';
/** The names the API runs with: the adapters' credentials come from their descriptors. */
const redactor = new Redactor([...SECRET_NAMES, 'auth_token', 'password', 'app_secret', 'pin']);
const redactUrl = (url: string) => redactor.text(url);

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
});

describe('redactUrl with the credentials of adapters and any secret name', () => {
  it.each([
    [
      `/api/phone/?adapter_data[password]=${SECRET}&name=x`,
      '/api/phone/?adapter_data[password]=[Redacted]&name=x',
    ],
    [
      `/api/phone/?adapter_data%5Bauth_token%5D=${SECRET}`,
      '/api/phone/?adapter_data%5Bauth_token%5D=[Redacted]',
    ],
    [`/api/phone/?__proto__[api_key]=${KEY}`, '/api/phone/?__proto__[api_key]=[Redacted]'],
    [`/api/phone/?x[api_key]=${KEY}`, '/api/phone/?x[api_key]=[Redacted]'],
    [`/api/phone/?secret=${SECRET}`, '/api/phone/?secret=[Redacted]'],
    [`/api/phone/?webhook[secret]=${SECRET}`, '/api/phone/?webhook[secret]=[Redacted]'],
    [
      `/api/phone/?adapter_data[p%61ssword]=${SECRET}`,
      '/api/phone/?adapter_data[p%61ssword]=[Redacted]',
    ],
    [`/api/phone/?api%255Fkey=${KEY}`, '/api/phone/?api%255Fkey=[Redacted]'],
  ])('masks %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('masks a parameter whose value is JSON holding a secret member', () => {
    const json = encodeURIComponent(JSON.stringify({ username: 'u', password: SECRET }));

    expect(redactUrl(`/api/phone/?name=p&adapter_data=${json}`)).toBe(
      '/api/phone/?name=p&adapter_data=[Redacted]',
    );
  });

  it('leaves the other adapter data alone', () => {
    expect(redactUrl('/api/phone/?adapter_data[username]=u&adapter_data[from]=smsgw')).toBe(
      '/api/phone/?adapter_data[username]=u&adapter_data[from]=smsgw',
    );
  });
});

describe('serializeError', () => {
  it('drops the SQL and the bound values of a failed query', () => {
    const error = Object.assign(new Error('Duplicate entry'), {
      query: 'INSERT INTO phone VALUES (?)',
      parameters: [SECRET],
      sql: `INSERT INTO phone VALUES ('${SECRET}')`,
      driverError: { sql: SECRET },
      code: 'ER_DUP_ENTRY',
    });

    const serialized = serializeError(error);

    expect(JSON.stringify(serialized)).not.toContain(SECRET);
    expect(serialized).toMatchObject({ message: 'Duplicate entry', code: 'ER_DUP_ENTRY' });
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
    const logger = pinoHttp({ ...pinoHttpOptions('info', redactor), stream: out.stream });
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

  it('masks secrets in every line its loggers write: messages, objects, errors', async () => {
    const out = capture();
    const logger = pinoHttp({ ...pinoHttpOptions('info', redactor), stream: out.stream });
    const server = createServer((req, res) => {
      logger(req, res);
      req.log.info({ phone: { data: { kannel: { password: SECRET } } } }, 'a nested secret');
      req.log.warn(`Could not reach http://k.test/cgi-bin/sendsms?username=u&password=${SECRET}`);
      req.log.error(
        { err: new TypeError(`Failed to parse URL from http://u:${SECRET}@k.test/`) },
        'a failure',
      );
      req.log.child({ form: { 'adapter_data[auth_token]': SECRET } }).info('a bound secret');
      res.end('ok');
    });

    await request(server).get('/').expect(200);
    await out.firstLine;

    expect(out.lines.length).toBeGreaterThanOrEqual(4);
    expect(out.text.join('')).not.toContain(SECRET);
    expect(out.lines[0].phone).toEqual({ data: { kannel: { password: '[Redacted]' } } });
    expect(out.lines[1].msg).toBe(
      'Could not reach http://k.test/cgi-bin/sendsms?username=u&password=[Redacted]',
    );
  });

  it('logs nothing at the silent level', async () => {
    const out = capture();
    const logger = pinoHttp({ ...pinoHttpOptions('silent', redactor), stream: out.stream });
    const server = createServer((req, res) => {
      logger(req, res);
      req.log.error('an error that must not be written');
      res.end('ok');
    });

    await request(server).get('/').expect(200);

    expect(out.text).toEqual([]);
  });
});
