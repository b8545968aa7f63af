import busboy from 'busboy';
import type { Request } from 'express';
import { CallbackRequest } from '../adapters/adapter';
import { Params } from '../common/params/parse';
import { MAX_BRACKET_DEPTH, paramsFromPairs, queryStringOf } from '../common/params/query-string';

/** A callback's body as its middleware read it: the text, and its fields when it has any. */
export interface CallbackBody {
  rawBody: string;
  form: Record<string, string>;
}

export type CallbackHttpRequest = Request & { callbackBody?: CallbackBody };

/**
 * The request as adapters read it. `origin` is where the provider sent it: PUBLIC_URL when set
 * (behind a proxy the request's own host and scheme are not what the provider called, and
 * signatures cover the URL called), else the request's scheme and host.
 */
export function toCallbackRequest(
  request: CallbackHttpRequest,
  publicUrl: string | null,
): CallbackRequest {
  const origin = publicUrl ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  const search = request.originalUrl.indexOf('?');
  return {
    method: request.method,
    url: origin + request.originalUrl,
    headers,
    query: search < 0 ? {} : pairsToRecord(new URLSearchParams(request.originalUrl.slice(search))),
    form: request.callbackBody?.form ?? {},
    rawBody: request.callbackBody?.rawBody ?? '',
  };
}

/**
 * A callback's query string with the API's bracket rules, for the API-key guard. Providers are
 * not told about malformed input (they get no envelope): escapes that are not UTF-8 become
 * U+FFFD, as the adapters read them, and a query the rules refuse (brackets nested too deep)
 * counts as no query, so no key. The header size limit bounds its length.
 */
export function readCallbackQuery(url: string): Params {
  try {
    return paramsFromPairs(new URLSearchParams(queryStringOf(url)));
  } catch {
    return {};
  }
}

/**
 * The body's text and fields. Fields keep the names the provider sent (`a[b]` stays `a[b]`),
 * since signatures such as Twilio's are computed over them; a name given twice keeps its last
 * value, as PHP reads forms. A body that does not parse has no fields, only its text.
 */
export async function readCallbackBody(
  buffer: Buffer,
  contentType: string | undefined,
): Promise<CallbackBody> {
  const type = (contentType ?? '').toLowerCase();
  const rawBody = decode(buffer, charsetOf(type));
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return { rawBody, form: pairsToRecord(new URLSearchParams(rawBody)) };
  }
  if (/^application\/([\w.+-]+\+)?json/.test(type)) {
    return { rawBody, form: flattenJson(rawBody) };
  }
  if (type.startsWith('multipart/form-data')) {
    return { rawBody, form: await multipartFields(buffer, contentType ?? '') };
  }
  return { rawBody, form: {} };
}

function pairsToRecord(pairs: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of pairs) {
    record[name] = value;
  }
  return record;
}

function charsetOf(contentType: string): string {
  return /;\s*charset="?([\w.:-]+)"?/.exec(contentType)?.[1] ?? 'utf-8';
}

/** Kannel declares the charset of the message it posts (UTF-16BE for UCS-2 texts). */
function decode(buffer: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(buffer);
  } catch {
    return buffer.toString('utf8');
  }
}

/**
 * A JSON object's values as strings; nested values named as a form would name them, `a[b]`,
 * down to the bracket depth the API reads (deeper ones are left out, so that no nesting can
 * exhaust the stack).
 */
function flattenJson(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  const form: Record<string, string> = {};
  // JSON may hold lone surrogates (`"\ud800"`), which adapters cannot encode: they become U+FFFD.
  const visit = (name: string, item: unknown, depth: number) => {
    if (item !== null && typeof item === 'object') {
      if (depth < MAX_BRACKET_DEPTH) {
        for (const [key, nested] of Object.entries(item)) {
          visit(`${name}[${key}]`, nested, depth + 1);
        }
      }
    } else {
      const text = item === null ? '' : typeof item === 'string' ? item : JSON.stringify(item);
      form[name.toWellFormed()] = text.toWellFormed();
    }
  };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) {
      visit(key, item, 0);
    }
  }
  return form;
}

/** The text fields of a multipart body; files are skipped (callbacks carry none we keep). */
function multipartFields(buffer: Buffer, contentType: string): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    const form: Record<string, string> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8' });
    } catch {
      resolve(form);
      return;
    }
    parser.on('field', (name, value) => {
      form[name] = value;
    });
    parser.on('file', (_name, stream) => {
      // A body cut short inside a file is reported on the file's stream.
      stream.on('error', () => undefined);
      stream.resume();
    });
    parser.on('close', () => resolve(form));
    parser.on('error', () => resolve({}));
    parser.end(buffer);
  });
}
