import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode, errorMessage } from '../errors/api-error';
import { displayName } from '../params/query-string';
import { errorEnvelope } from './envelope';

/** What Node's HTTP parser refused, by its error code: our status and words for it. */
function answerTo(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'the request headers are larger than the server accepts.' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, detail: 'the chunk extensions of the body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'the request did not arrive in time.' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, detail: 'the HTTP method is not valid.' };
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return { status: 400, detail: 'the request line is not "METHOD /path HTTP/1.1".' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_HEADER_VALUE':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { status: 400, detail: 'a request header is malformed.' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_STRICT':
      return {
        status: 400,
        detail: 'the length of the body (Content-Length or chunked encoding) is malformed.',
      };
    default:
      return { status: 400, detail: 'the HTTP request is malformed.' };
  }
}

function envelopeBody(detail: string): string {
  return JSON.stringify(
    errorEnvelope(ErrorCode.INVALID_PARAMETER, errorMessage(ErrorCode.INVALID_PARAMETER, detail)),
  );
}

/** A whole HTTP/1.1 response with the failure envelope, after which the connection ends. */
function rawAnswer(status: number, detail: string): string {
  const body = envelopeBody(detail);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** A socket as Node's HTTP server keeps it: the response it is writing, if any. */
type HttpSocket = Duplex & { _httpMessage?: ServerResponse | null };

/**
 * Node refuses a request its parser cannot read (bad method, request line or chunking, headers
 * too large) with a bare status line, or closes the connection, before the app sees anything:
 * clients get the envelope instead, then the connection is closed. A connection reset by the
 * client can only be closed.
 */
function onClientError(error: NodeJS.ErrnoException, socket: HttpSocket): void {
  if (error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { status, detail } = answerTo(error.code);
  answerAfterResponses(socket, rawAnswer(status, detail));
}

/**
 * Writes `answer` once the responses to the connection's earlier requests are written: a
 * malformed request after well-formed ones on a kept-alive connection must not take their place
 * (Node's own handler writes over a response not yet started, or gives up after one). A
 * request whose own body is malformed is answered at once.
 */
function answerAfterResponses(socket: HttpSocket, answer: string): void {
  const inFlight = socket._httpMessage;
  if (inFlight && !inFlight.req.complete) {
    // The malformed bytes are this request's own body: the answer is ours to give, unless the
    // app has begun one.
    if (inFlight.headersSent) {
      socket.destroy();
      return;
    }
  } else if (inFlight) {
    // Node lets go of the response on its 'finish' event (even when its bytes are already
    // out) and hands the socket to the next queued one there, before this listener runs.
    inFlight.once('finish', () => answerAfterResponses(socket, answer));
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer, () => socket.destroy());
}

/** HTTP/1.1 requires a Host header (RFC 9112 §3.2): Node checks it, the app answers it. */
function requireHost(request: Request, response: Response, next: NextFunction): void {
  if (request.httpVersion === '1.1' && request.headers.host === undefined) {
    response
      .status(400)
      .set('Connection', 'close')
      .type('application/json')
      .send(envelopeBody('the request has no Host header, which HTTP/1.1 requires.'));
    return;
  }
  next();
}

/**
 * Makes every answer of the HTTP server the envelope, including those Node would give itself
 * before the app runs: parser errors, a missing Host header, an `Expect` other than
 * `100-continue` (Node's bare 417), and CONNECT (which Node answers by closing the connection).
 * Used by `createApp`, so by `main.ts` and the e2e tests alike.
 */
export function answerMalformedRequests(app: NestExpressApplication): void {
  const server: Server = app.getHttpServer();
  server.on('clientError', onClientError);
  // Node would answer a missing Host with an empty 400 itself; `requireHost` does it instead.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  app.use(requireHost);
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = envelopeBody('the Expect header is not supported; only 100-continue is.');
    response.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    response.end(body);
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawAnswer(404, `no operation at CONNECT ${displayName(request.url ?? '')}`), () =>
      socket.destroy(),
    );
  });
}
