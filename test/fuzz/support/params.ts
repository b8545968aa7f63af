/*
 * Parameters as a tree that can say what plain objects cannot (duplicate keys, `__proto__` as
 * an own key, raw JSON number tokens), and its encodings: PHP bracket forms, JSON, multipart.
 */

export type Value =
  | { k: 'str'; v: string }
  | { k: 'num'; v: number }
  /** A JSON token written as is (`1e999`, `-0`, `00`); its text in a form. */
  | { k: 'raw'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'list'; items: Value[] }
  | { k: 'map'; entries: Entry[] };

export type Entry = [name: string, value: Value];

export const str = (v: string): Value => ({ k: 'str', v });
export const num = (v: number): Value => ({ k: 'num', v });
export const list = (items: Value[]): Value => ({ k: 'list', items });
export const map = (entries: Entry[]): Value => ({ k: 'map', entries });

/** JSON text of a value, keys in order and duplicates kept. */
export function toJson(value: Value): string {
  switch (value.k) {
    case 'str':
      // JSON.stringify escapes lone surrogates (\ud800), as a client would send them.
      return JSON.stringify(value.v);
    case 'num':
      return Number.isFinite(value.v) ? JSON.stringify(value.v) : '1e999';
    case 'raw':
      return value.v;
    case 'bool':
      return String(value.v);
    case 'null':
      return 'null';
    case 'list':
      return `[${value.items.map(toJson).join(',')}]`;
    case 'map':
      return `{${value.entries.map(([name, item]) => `${JSON.stringify(name)}:${toJson(item)}`).join(',')}}`;
  }
}

export function jsonObject(entries: Entry[]): string {
  return toJson(map(entries));
}

/**
 * Percent-encodes each UTF-16 unit as a browser would UTF-8 encode it, except that a lone
 * surrogate becomes the three bytes of its code unit (WTF-8): invalid UTF-8, as a broken
 * client sends it. `encodeURIComponent` would throw instead.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (/[A-Za-z0-9\-_.~]/.test(text[i])) {
      out += text[i];
      continue;
    }
    let point = unit;
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        point = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        i += 1;
      }
    }
    out += [...utf8Bytes(point)]
      .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
  }
  return out;
}

function utf8Bytes(point: number): number[] {
  if (point < 0x80) {
    return [point];
  }
  if (point < 0x800) {
    return [0xc0 | (point >> 6), 0x80 | (point & 0x3f)];
  }
  if (point < 0x10000) {
    return [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 0x3f), 0x80 | (point & 0x3f)];
  }
  return [
    0xf0 | (point >> 18),
    0x80 | ((point >> 12) & 0x3f),
    0x80 | ((point >> 6) & 0x3f),
    0x80 | (point & 0x3f),
  ];
}

/** How a list goes into a form: `a[]=x&a[]=y`, or `a[0]=x&a[1]=y`. */
export type ListStyle = 'push' | 'indexed';

/** The flat name/value pairs of a bracket form. */
export function formPairs(entries: Entry[], style: ListStyle): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const visit = (name: string, value: Value) => {
    switch (value.k) {
      case 'str':
      case 'raw':
        pairs.push([name, value.v]);
        return;
      case 'num':
        pairs.push([name, String(value.v)]);
        return;
      case 'bool':
        pairs.push([name, value.v ? '1' : '0']);
        return;
      case 'null':
        pairs.push([name, '']);
        return;
      case 'list':
        if (!value.items.length) {
          pairs.push([name, '']);
        }
        value.items.forEach((item, index) => {
          const scalar = item.k !== 'list' && item.k !== 'map';
          visit(style === 'push' && scalar ? `${name}[]` : `${name}[${index}]`, item);
        });
        return;
      case 'map':
        for (const [key, item] of value.entries) {
          visit(`${name}[${key}]`, item);
        }
        return;
    }
  };
  for (const [name, value] of entries) {
    visit(name, value);
  }
  return pairs;
}

export function urlencoded(pairs: Array<[string, string]>): string {
  return pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');
}

export interface FilePart {
  field: string;
  filename: string;
  type: string;
  content: Buffer;
}

/** A multipart/form-data body as browsers and curl write it. */
export function multipart(
  boundary: string,
  fields: Array<[string, string]>,
  files: FilePart[],
): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(name)}"\r\n\r\n`,
      ),
      Buffer.from(value, 'utf8'),
      Buffer.from('\r\n'),
    );
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(file.field)}"; ` +
          `filename="${quoteParam(file.filename)}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Quotes and line breaks escaped in a Content-Disposition parameter, as browsers do. */
function quoteParam(text: string): string {
  return text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
