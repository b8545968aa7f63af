import { SecretCipher, UnreadableSecretError } from './secret-cipher';

/** A record's fields as opened, and the names of those whose value did not decrypt. */
export interface OpenedFields {
  values: Readonly<Record<string, string>>;
  unreadable: string[];
}

/**
 * A JSON object of texts as stored in a column (numbers and the like as their JSON text);
 * anything else, a malformed text included, is an empty record.
 */
export function parseTextRecord(json: string | null): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(json ?? '{}');
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {};
  }
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [
      name,
      typeof field === 'string' ? field : JSON.stringify(field),
    ]),
  );
}

/**
 * `record` with the values of `fields` encrypted one by one, each bound to `scope` and its own
 * name, so that no value can be moved to another field or another scope; other fields as they are.
 */
export function sealFields(
  cipher: SecretCipher,
  fields: readonly string[],
  record: Readonly<Record<string, string>>,
  scope: string,
): Record<string, string> {
  const sealed = { ...record };
  for (const field of fields) {
    if (sealed[field] !== undefined) {
      sealed[field] = cipher.seal(sealed[field], `${scope}/${field}`);
    }
  }
  return sealed;
}

/**
 * `record` with the values of `fields` decrypted. A value that does not decrypt (another key,
 * altered, moved from elsewhere, or never encrypted) is left out and named in `unreadable`.
 */
export function openFields(
  cipher: SecretCipher,
  fields: readonly string[],
  record: Readonly<Record<string, string>>,
  scope: string,
): OpenedFields {
  const values = { ...record };
  const unreadable: string[] = [];
  for (const field of fields) {
    if (values[field] === undefined) {
      continue;
    }
    try {
      values[field] = cipher.open(values[field], `${scope}/${field}`);
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) {
        throw error;
      }
      delete values[field];
      unreadable.push(field);
    }
  }
  return { values, unreadable };
}
