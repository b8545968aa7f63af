import { ServerResponse } from 'node:http';

/**
 * The ways a provider's API answers badly that every adapter must survive: an HTML error page,
 * JSON that does not parse, a body far larger than any answer, a request read and never
 * answered, and a connection reset once the answer has begun.
 */
export type Misbehaviour = 'html' | 'invalid-json' | 'huge' | 'hang' | 'reset';

/** Answers `response` as `misbehaviour` says, with `status` where there is an answer. */
export function misbehave(
  response: ServerResponse,
  misbehaviour: Misbehaviour,
  status = 200,
): void {
  switch (misbehaviour) {
    case 'html':
      response.writeHead(status, { 'Content-Type': 'text/html' });
      response.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    case 'invalid-json':
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end('{"messages": [{"status": "0", ');
      return;
    case 'huge':
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(`{"padding": "${'x'.repeat(8 * 1024 * 1024)}"}`);
      return;
    case 'hang':
      return;
    case 'reset':
      response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      response.write('{"data": {"id": "', () => response.socket?.destroy());
      return;
  }
}
