import { ApiError } from '../common/errors/api-error';
import { fieldBase } from '../common/http/multipart';
import { UploadedFile } from '../common/http/request';
import { checkParsedJson } from '../common/params/check-params';
import { Deferred } from '../common/params/deferred';
import { nameKey, parseEntryName } from '../common/params/entry-name';
import { asList, isAbsent, Params, parseId, requiredMessage } from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';

/** Keys a contact's data may hold: template variables, not a document store. */
export const MAX_DATA_KEYS = 64;
/** A contact's data, JSON-encoded: read for every message sent to the contact. */
export const MAX_DATA_BYTES = 8 * 1024;

/** A contact as it is stored: name trimmed, its key, number in E.164, data as a JSON object. */
export interface ContactFields {
  name: string;
  nameKey: string;
  number: string;
  data: string;
}

/**
 * post_contact's parameters (docs/api.md#post_contact): all checked at the edge but the name's
 * uniqueness (rule 5).
 */
export type CreateContactInput = ContactFields;

/** post_update_contact's parameters; a field not sent is undefined and keeps its value. */
export interface UpdateContactInput {
  id: number;
  /** Rule 2, after rule 1 looked the contact up. */
  changes: Deferred<Partial<ContactFields>>;
}

export interface ContactIdInput {
  id: number;
}

/** post_import_contacts' source: the CSV file, or the JSON list. */
export type ImportContactsInput =
  { kind: 'csv'; file: UploadedFile } | { kind: 'list'; items: unknown[] };

/** `country` is the caller's `default_phone_country`, for national numbers. */
export function parseCreateContactParams(params: Params, country: string): CreateContactInput {
  // Rule 1.
  const missing = (['name', 'number'] as const).filter((field) => isAbsent(params[field]));
  if (missing.length > 0) {
    throw ApiError.missing(requiredMessage(missing));
  }
  // Rules 2 to 4.
  return { data: '{}', ...contactFields(params, country) } as CreateContactInput;
}

export function parseUpdateContactParams(params: Params, country: string): UpdateContactInput {
  return {
    id: requiredId(params.id),
    changes: Deferred.parse(() => contactFields(params, country)),
  };
}

export function parseContactIdParams(params: Params): ContactIdInput {
  return { id: requiredId(params.id) };
}

/** post_import_contacts rule 1: one source, the file or the list. */
export function parseImportContactsParams(
  params: Params,
  files: readonly UploadedFile[],
): ImportContactsInput {
  const csvFiles = files.filter((file) => fieldBase(file.fieldname) === 'contacts_csv');
  const listSent = !isAbsent(params.contacts);
  if (csvFiles.length > 1) {
    throw ApiError.invalid('contacts_csv : send one file, not several.');
  }
  if (csvFiles.length === 1 && listSent) {
    throw ApiError.invalid('contacts_csv, contacts : send the file or the list, not both.');
  }
  if (csvFiles.length === 1) {
    return { kind: 'csv', file: csvFiles[0] };
  }
  if (!isAbsent(params.contacts_csv)) {
    throw ApiError.invalid('contacts_csv must be a file sent in a multipart/form-data body.');
  }
  if (!listSent) {
    throw ApiError.missing(
      'contacts_csv or contacts is required: a CSV file, or a list of {name, number, data}.',
    );
  }
  const items = asList(params.contacts);
  if (typeof params.contacts !== 'object') {
    throw ApiError.invalid('contacts must be a list of {name, number, data}.');
  }
  return { kind: 'list', items };
}

/**
 * The fields sent among name, number and data, checked in this order; undefined for those not
 * sent. `data` sent empty (`data=`, `[]`, `{}`) is the empty object.
 */
export function contactFields(
  fields: Readonly<Record<string, unknown>>,
  country: string,
): Partial<ContactFields> {
  const name = parseEntryName(fields.name);
  const number =
    fields.number === undefined || fields.number === null
      ? undefined
      : contactNumber(fields.number, country);
  const data =
    fields.data === undefined || fields.data === null ? undefined : contactData(fields.data);
  return withoutUndefined({
    name,
    nameKey: name === undefined ? undefined : nameKey(name),
    number,
    data,
  });
}

/** A number in E.164, national numbers read in `country`; else INVALID_PARAMETER naming `number`. */
export function contactNumber(value: unknown, country: string): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') {
    throw ApiError.invalid('number must be a phone number, as a string.');
  }
  const number = normalizePhoneNumber(text, country);
  if (number === null) {
    throw ApiError.invalid(
      `number : ${shown(text)} is not a valid phone number; use the international format (+…)` +
        `${country ? ` or a national number of ${country.toUpperCase()}` : ''}.`,
    );
  }
  return number;
}

/**
 * A contact's data as the JSON object stored: bracket fields and JSON objects as they are, a
 * JSON object in a string parsed; `""` and `[]` (PHP's empty map) are `{}`. Values are scalars.
 */
export function contactData(value: unknown): string {
  let data = value;
  if (typeof data === 'string') {
    if (data.trim() === '') {
      return '{}';
    }
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      throw ApiError.invalid('data must be an object, or a JSON object in a string.');
    }
    checkParsedJson(data, 'data');
  }
  if (Array.isArray(data) && data.length === 0) {
    return '{}';
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw ApiError.invalid('data must be an object, or a JSON object in a string.');
  }
  return encodeData(Object.entries(data));
}

/** Data entries checked and encoded: scalar values, MAX_DATA_KEYS keys, MAX_DATA_BYTES bytes. */
export function encodeData(entries: ReadonlyArray<[string, unknown]>): string {
  if (entries.length > MAX_DATA_KEYS) {
    throw ApiError.invalid(`data must have at most ${MAX_DATA_KEYS} keys, got ${entries.length}.`);
  }
  for (const [key, item] of entries) {
    const scalar =
      typeof item === 'string' ||
      typeof item === 'boolean' ||
      (typeof item === 'number' && Number.isFinite(item));
    if (!scalar) {
      throw ApiError.invalid(`data[${key}] must be a text, a number or a boolean.`);
    }
  }
  const encoded = JSON.stringify(Object.fromEntries(entries));
  const bytes = Buffer.byteLength(encoded, 'utf8');
  if (bytes > MAX_DATA_BYTES) {
    throw ApiError.invalid(
      `data must take at most ${MAX_DATA_BYTES} bytes once JSON-encoded, got ${bytes}.`,
    );
  }
  return encoded;
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your contacts.');
  }
  return id;
}

function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
