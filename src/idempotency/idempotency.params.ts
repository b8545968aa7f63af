import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { isAbsent, Params } from '../common/params/parse';

/** The header that carries an idempotency key; the parameter `idempotency_key` is the other way. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Printable ASCII, space to tilde: what an HTTP header carries as it is, in any client. */
const KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The idempotency key of get_send_sms or post_scheduled (docs/idempotency.md): the header
 * `Idempotency-Key` when sent (even empty), else the parameter `idempotency_key`, read from the
 * query, the form or the JSON body as every parameter is. A malformed key waits for its rule,
 * which comes after the operation's other checks.
 */
export function parseIdempotencyKey(
  header: string | string[] | undefined,
  params: Params,
): Deferred<string | undefined> {
  return Deferred.parse(() => {
    if (header !== undefined) {
      return checkKey(Array.isArray(header) ? header.join(', ') : header, IDEMPOTENCY_HEADER);
    }
    const value = params.idempotency_key;
    if (value === undefined) {
      return undefined;
    }
    if (typeof value !== 'string') {
      throw ApiError.invalid('idempotency_key : a key must be a string.');
    }
    return checkKey(value, 'idempotency_key');
  });
}

function checkKey(key: string, name: string): string {
  if (!KEY.test(key)) {
    const got = isAbsent(key)
      ? 'an empty value'
      : key.length > 255
        ? `${key.length} characters`
        : 'a character outside that range';
    throw ApiError.invalid(
      `${name} : a key must be 1 to 255 printable ASCII characters (space to ~), got ${got}.`,
    );
  }
  return key;
}
