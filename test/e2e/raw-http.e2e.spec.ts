import { connect } from 'node:net';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { exchange, RawAnswer } from '../support/raw-http';

/*
 * What Node's HTTP layer refuses before the app runs, sent byte for byte on raw sockets to the
 * real app: each answer is a complete HTTP/1.1 response whose body is the failure envelope,
 * with `Connection: close`, and the server then closes the connection. (No database is
 * involved, so this runs on SQLite only.)
 */

/** A complete envelope answer with `status`, error 2 and a message of ours, then a close. */
function expectEnvelope(answer: RawAnswer, status: number, detail: RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json\b/);
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error', 'message', 'response', 'next', 'prev']);
  expect(body).toMatchObject({ error: 2, response: null, next: null, prev: null });
  expect(body.message).toMatch(/^You have specified an invalid parameter : /);
  expect(String(body.message).slice('You have specified an invalid parameter : '.length)).toMatch(
    detail,
  );
  expect(body.message).not.toMatch(/Parse Error|HPE_/);
  expect(answer.closedByServer).toBe(true);
}

describe('requests that Node refuses before the app: still the envelope', () => {
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

  const HOST = 'Host: 127.0.0.1\r\n';

  it.each([
    ['an unknown method', `FOO /api/list/phone/ HTTP/1.1\r\n${HOST}\r\n`, /HTTP method/],
    ['a request line with spaces in its path', `GET /a b HTTP/1.1\r\n${HOST}\r\n`, /./],
    ['an unknown HTTP version', `GET / HTTP/9.9\r\n${HOST}\r\n`, /request line/],
    ['bytes that are not HTTP', '\x01\x02\x03\r\n\r\n', /./],
    ['a header name with a space', `GET / HTTP/1.1\r\n${HOST}Bad Header: x\r\n\r\n`, /header/],
    [
      'a chunk size that is not hexadecimal',
      `POST /api/scheduled/ HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      /chunked/,
    ],
    [
      'Content-Length with Transfer-Encoding',
      `POST /api/scheduled/ HTTP/1.1\r\n${HOST}Content-Length: 3\r\n` +
        'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      /length of the body/,
    ],
    [
      'a Content-Length that is not a number',
      `POST /api/scheduled/ HTTP/1.1\r\n${HOST}Content-Length: abc\r\n\r\n`,
      /length of the body/,
    ],
  ])('answers %s with 400 and the envelope, then closes', async (_case, bytes, detail) => {
    expectEnvelope(await exchange(t.url, bytes), 400, detail);
  });

  it('answers headers over the size limit with 431 and the envelope', async () => {
    const answer = await exchange(
      t.url,
      `GET /api/list/phone/ HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );

    expectEnvelope(answer, 431, /headers are larger than the server accepts/);
  });

  it('answers chunk extensions over the size limit with 413 and the envelope', async () => {
    const answer = await exchange(
      t.url,
      `POST /api/scheduled/ HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\n` +
        `1;${'a'.repeat(20 * 1024)}\r\nx\r\n0\r\n\r\n`,
    );

    expectEnvelope(answer, 413, /chunk extensions/);
  });

  it('answers an HTTP/1.1 request without Host with 400 and the envelope', async () => {
    expectEnvelope(
      await exchange(t.url, 'GET /api/list/phone/ HTTP/1.1\r\n\r\n'),
      400,
      /no Host header/,
    );
  });

  it('answers an Expect other than 100-continue with 417 and the envelope', async () => {
    const answer = await exchange(
      t.url,
      `POST /api/scheduled/ HTTP/1.1\r\n${HOST}Expect: something\r\nContent-Length: 0\r\n\r\n`,
    );

    expectEnvelope(answer, 417, /Expect header/);
  });

  it('answers CONNECT with 404 and the envelope instead of dropping the connection', async () => {
    const answer = await exchange(t.url, `CONNECT example.com:443 HTTP/1.1\r\n${HOST}\r\n`);

    expectEnvelope(answer, 404, /^no operation at CONNECT example\.com:443$/);
  });

  it('answers a malformed request after the answers to those before it on the connection', async () => {
    // Two well-formed requests, then a malformed one, in one write: the app answers the first
    // two after the parser has already refused the third.
    const answer = await exchange(
      t.url,
      `GET /api/nope/ HTTP/1.1\r\n${HOST}\r\nGET /api/list/ HTTP/1.1\r\n${HOST}\r\n` +
        `FOO / HTTP/1.1\r\n${HOST}\r\n`,
    );

    const statuses = [...`${answer.body}`.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map(
      (match) => match[1],
    );
    expect(answer.status).toBe(404);
    expect(statuses).toEqual(['404', '400']);
    expect(answer.body).toContain('no operation at GET /api/list/');
    expect(answer.body.slice(answer.body.lastIndexOf('\r\n\r\n') + 4)).toMatch(
      /^\{"error":2,"message":"You have specified an invalid parameter : the HTTP method/,
    );
    expect(answer.closedByServer).toBe(true);
  });

  it('closes the connection of a client that resets it mid-request, and keeps serving', async () => {
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(`POST /api/scheduled/ HTTP/1.1\r\n${HOST}Content-Length: 100\r\n\r\nabc`);
    socket.resetAndDestroy();

    const after = await request(t.url).get('/api/nope/');

    expect(after.status).toBe(404);
  });

  it('still serves well-formed requests on the same server', async () => {
    const answer = await exchange(
      t.url,
      `GET /api/nope/ HTTP/1.1\r\n${HOST}Connection: close\r\n\r\n`,
    );

    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 2 });
  });
});
