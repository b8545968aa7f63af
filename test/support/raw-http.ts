import { connect } from 'node:net';

/* HTTP spoken byte for byte on a raw socket, for what a well-behaved client cannot send. */

export interface RawAnswer {
  /** The status of the first response; 0 when none came. */
  status: number;
  /** The headers of the first response, names in lower case. */
  headers: Record<string, string>;
  /** Everything after the first response's headers. */
  body: string;
  /** Whether the server closed the connection (the client never does in `exchange`). */
  closedByServer: boolean;
}

function parseAnswer(raw: Buffer, closedByServer: boolean): RawAnswer {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = (split < 0 ? text : text.slice(0, split)).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
    headers,
    body: split < 0 ? '' : Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
    closedByServer,
  };
}

/**
 * Writes `bytes` to the server at `url` and reads until the server closes the connection
 * (`timeoutMs` at most, after which the client closes it).
 */
export function exchange(
  url: string,
  bytes: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks), closedByServer));
    });
  });
}

/**
 * As `exchange`, writing `bytes` in pieces of `size` bytes, each in its own turn of the event
 * loop, so that the server parses them as they trickle in rather than all at once.
 */
export function exchangeInPieces(url: string, bytes: Buffer, size: number): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const socket = connect(Number(port), '127.0.0.1', () => {
      let offset = 0;
      const writeNext = () => {
        if (offset < bytes.length && !socket.destroyed) {
          socket.write(bytes.subarray(offset, offset + size), () => setTimeout(writeNext, 1));
          offset += size;
        }
      };
      writeNext();
    });
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks), closedByServer));
    });
  });
}

/**
 * Sends the request head and the first `sent` bytes of a body announced as `announced` bytes
 * long, then drops the connection, as a client that goes away mid-upload. Resolves once the
 * socket is closed; `reset` sends a TCP RST rather than a FIN.
 */
export function abandon(
  url: string,
  head: string,
  body: Buffer,
  sent: number,
  reset = false,
): Promise<void> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(head);
      socket.write(body.subarray(0, sent), () => {
        // Long enough for the server to start reading, short enough to abandon it mid-body.
        setTimeout(() => (reset ? socket.resetAndDestroy() : socket.destroy()), 5);
      });
    });
    // The server may answer and close first: what happens to the socket then does not matter.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

/** A POST's head with a body of `length` bytes of `contentType`. */
export function postHead(path: string, contentType: string, length: number): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
    `Content-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`
  );
}
