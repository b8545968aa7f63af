import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/*
 * The two ways a fuzz case reaches the server, both over real sockets to 127.0.0.1: node:http
 * for well-formed HTTP, and a raw TCP socket for bytes no HTTP client would write.
 */

/** A well-formed request, sent with node:http on a connection of its own. */
export interface HttpCase {
  kind: 'http';
  method: string;
  /** Path and query exactly as they go on the request line. */
  path: string;
  /** In order, duplicates allowed; `Host` and `Content-Length` are added unless given. */
  headers: Array<[string, string]>;
  body: Buffer | null;
}

/**
 * Bytes written as they are. `answer`: the client reads the answer (half-closing if none comes,
 * for requests the server still waits bytes for); `hang-up` and `reset` stop after the bytes
 * (with a FIN or an RST), as a client that goes away mid-request.
 */
export interface RawCase {
  kind: 'raw';
  bytes: Buffer;
  ending: 'answer' | 'hang-up' | 'reset';
  /** Whether the server must answer (a complete or a rejected request) or may stay silent. */
  mustAnswer: boolean;
}

export type WireCase = HttpCase | RawCase;

export interface Answer {
  /** null when nothing (or nothing readable as HTTP) came back. */
  status: number | null;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  ms: number;
  timedOut: boolean;
  /** A connection failure (refused, reset), as a client would see it. */
  error: string | null;
}

function joinHeaders(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    headers[name] = name in headers ? `${headers[name]}, ${raw[i + 1]}` : raw[i + 1];
  }
  return headers;
}

export function sendHttp(port: number, wire: HttpCase, timeoutMs: number): Promise<Answer> {
  const started = Date.now();
  const names = new Set(wire.headers.map(([name]) => name.toLowerCase()));
  const headers: string[] = [];
  if (!names.has('host')) {
    headers.push('Host', `127.0.0.1:${port}`);
  }
  for (const [name, value] of wire.headers) {
    headers.push(name, value);
  }
  if (wire.body && !names.has('content-length') && !names.has('transfer-encoding')) {
    headers.push('Content-Length', String(wire.body.length));
  }
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Omit<Answer, 'ms'>) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ ...answer, ms: Date.now() - started });
      }
    };
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port,
      method: wire.method,
      path: wire.path,
      headers,
      setHost: false,
      agent: false,
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      done({ status: null, headers: {}, body: Buffer.alloc(0), timedOut: true, error: null });
    }, timeoutMs);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      const finish = () =>
        done({
          status: incoming.statusCode ?? null,
          headers: joinHeaders(incoming.rawHeaders),
          body: Buffer.concat(chunks),
          timedOut: false,
          error: null,
        });
      incoming.on('end', finish);
      // The server may close right after an error answer: what arrived is the answer.
      incoming.on('aborted', finish);
      incoming.on('error', finish);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      done({
        status: null,
        headers: {},
        body: Buffer.alloc(0),
        timedOut: false,
        error: error.code ?? error.message,
      });
    });
    outgoing.end(wire.body ?? undefined);
  });
}

/** How long a raw client that went away keeps its side open before the socket is dropped. */
const HANG_UP_LINGER_MS = 100;
/**
 * How long a raw client waits for its answer before it half-closes: a request the server is
 * still waiting bytes for then ends, but one still being handled is not cut off (Node drops the
 * request of a client that half-closes).
 */
const RAW_PATIENCE_MS = 5000;

export function sendRaw(port: number, wire: RawCase, timeoutMs: number): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let error: string | null = null;
    const socket = connect({ host: '127.0.0.1', port });
    const done = (timedOut: boolean) => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      resolve({
        status: parsed?.status ?? null,
        headers: parsed?.headers ?? {},
        body: parsed?.body ?? Buffer.concat(chunks),
        ms: Date.now() - started,
        timedOut,
        error,
      });
    };
    const timer = setTimeout(() => done(true), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parseResponse(Buffer.concat(chunks))?.complete) {
        done(false);
      }
    });
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
    socket.on('close', () => done(false));
    socket.on('connect', () => {
      socket.write(wire.bytes, () => {
        if (wire.ending === 'answer') {
          setTimeout(() => socket.end(), RAW_PATIENCE_MS).unref();
        } else if (wire.ending === 'hang-up') {
          socket.end();
          setTimeout(() => done(false), HANG_UP_LINGER_MS);
        } else {
          socket.resetAndDestroy();
        }
      });
    });
  });
}

interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The whole body arrived (by Content-Length or the last chunk). */
  complete: boolean;
}

/** The first final response in `bytes` (interim 1xx answers skipped), or null. */
export function parseResponse(bytes: Buffer): ParsedResponse | null {
  let offset = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', offset);
    if (end < 0) {
      return null;
    }
    const head = bytes.subarray(offset, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/\d\.\d (\d{3})/.exec(head[0]);
    if (!match) {
      return null;
    }
    const status = Number(match[1]);
    const raw: string[] = [];
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) {
        raw.push(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
    }
    const headers = joinHeaders(raw);
    const rest = bytes.subarray(end + 4);
    if (status >= 100 && status < 200) {
      offset = end + 4;
      continue;
    }
    if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
      return { status, headers, ...dechunk(rest) };
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
    }
    return { status, headers, body: rest, complete: false };
  }
}

function dechunk(bytes: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset);
    if (lineEnd < 0) {
      return { body: Buffer.concat(parts), complete: false };
    }
    const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) {
      return { body: Buffer.concat(parts), complete: false };
    }
    if (size === 0) {
      return { body: Buffer.concat(parts), complete: true };
    }
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
