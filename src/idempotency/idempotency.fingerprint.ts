import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { UploadedFile } from '../common/http/request';
import { Deferred } from '../common/params/deferred';

/**
 * What tells two requests with one idempotency key apart: the SHA-256 of the operation and of
 * its input as parsed (so `flash=1` and `flash=true`, a form and a JSON body, are the same
 * request), with each uploaded file as the SHA-256 of its content. Every field of the input
 * counts, parameters added to the operation later included; `undefined` fields are left out,
 * and object keys are sorted, so only values decide.
 */
export async function fingerprintOf(operation: string, input: object): Promise<string> {
  const canonical = JSON.stringify([operation, await canonicalOf(input)]);
  return createHash('sha256').update(canonical).digest('hex');
}

async function canonicalOf(value: unknown): Promise<unknown> {
  if (value instanceof Deferred) {
    // Every deferred rule has been reached when a fingerprint is taken: get() no longer throws.
    return canonicalOf(value.get());
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      items.push(await canonicalOf(item));
    }
    return items;
  }
  if (isUploadedFile(value)) {
    return { sha256: await fileHash(value.path) };
  }
  if (typeof value === 'object' && value !== null) {
    const entries: Array<[string, unknown]> = [];
    for (const key of Object.keys(value).sort()) {
      const field = (value as Record<string, unknown>)[key];
      if (field !== undefined) {
        entries.push([key, await canonicalOf(field)]);
      }
    }
    return entries;
  }
  return value;
}

function isUploadedFile(value: unknown): value is UploadedFile {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<UploadedFile>).path === 'string' &&
    typeof (value as Partial<UploadedFile>).fieldname === 'string'
  );
}

async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/**
 * The key of a request that sent one, with the fingerprint of `input`; undefined without a key.
 * Its rule comes once the operation's other checks passed: a malformed key is refused there.
 */
export async function keyedRequest(
  operation: string,
  key: Deferred<string | undefined>,
  input: object,
): Promise<{ key: string; fingerprint: string } | undefined> {
  const value = key.get();
  return value === undefined
    ? undefined
    : { key: value, fingerprint: await fingerprintOf(operation, input) };
}
