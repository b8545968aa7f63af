import { randomBytes } from 'node:crypto';

/* Request bodies written byte for byte as curl writes them. */

export interface FormPart {
  name: string;
  value: string | Buffer;
  /** Makes the part a file, as curl's `-F name=@filename`. */
  filename?: string;
  /** The part's declared type, as curl's `-F 'name=@file;type=…'`; else curl's guess. */
  type?: string;
}

/** curl's types for the extensions it knows (lib/mime.c); any other file is octet-stream. */
const CURL_TYPES: Record<string, string> = {
  gif: 'image/gif',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  htm: 'text/html',
  html: 'text/html',
  pdf: 'application/pdf',
  xml: 'application/xml',
};

/** A multipart/form-data body exactly as `curl -F` writes it (boundary as curl 7.88.1 makes one). */
export function curlMultipart(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `------------------------${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) {
      const extension = part.filename.split('.').pop()?.toLowerCase() ?? '';
      head +=
        `; filename="${part.filename}"\r\n` +
        `Content-Type: ${part.type ?? CURL_TYPES[extension] ?? 'application/octet-stream'}`;
    }
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    body: Buffer.concat(chunks),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
