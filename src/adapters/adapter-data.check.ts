import { ApiError } from '../common/errors/api-error';
import { listed } from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';
import { AdapterData } from './adapter';
import { AdapterDataField, AdapterDescriptor } from './adapter.descriptor';

/**
 * post_phone rule 5, first half (docs/api.md#post_phone): every field the caller sent must be one
 * of the adapter's, so that a misspelt field is told rather than silently dropped. Only what was
 * sent is checked: data stored under another adapter or an older descriptor is not the caller's
 * mistake.
 */
export function refuseUnknownFields(
  descriptor: AdapterDescriptor,
  sent: Readonly<Record<string, unknown>>,
): void {
  const known = new Set(descriptor.fields.map((field) => field.name));
  const unknown = Object.keys(sent).filter((name) => !known.has(name));
  if (unknown.length === 0) {
    return;
  }
  const named = unknown.map((name) => `adapter_data[${name}]`).join(', ');
  const fields = descriptor.fields.map((field) => field.name);
  throw ApiError.invalid(
    fields.length === 0
      ? `${named} : the ${descriptor.id} adapter takes no adapter_data.`
      : `${named} : the ${descriptor.id} adapter has no such field; its fields are ` +
          `${listed(fields)}.`,
  );
}

/**
 * post_phone rules 5 and 6 (docs/api.md#post_phone) on the data a phone will have: the
 * descriptor's fields are kept, as text; the required ones missing or blank are
 * MISSING_PARAMETER, all named at once; a `number` field must be a valid phone number (in the
 * user's default country when set) and is stored in E.164, else INVALID_PARAMETER — an absent or
 * empty one too, as rule 6 says.
 */
export function checkAdapterData(
  descriptor: AdapterDescriptor,
  data: Readonly<Record<string, unknown>>,
  defaultCountry: string,
): AdapterData {
  const kept: Record<string, string> = {};
  for (const field of descriptor.fields) {
    const value = dataValue(data, field.name);
    if (value !== undefined) {
      kept[field.name] = value;
    }
  }
  // Rule 5.
  const missing = descriptor.fields.filter(
    (field) => field.required && (kept[field.name] ?? '').trim() === '',
  );
  if (missing.length > 0) {
    throw ApiError.missing(
      `${listed(missing.map(describedField))} ${missing.length === 1 ? 'is' : 'are'} required ` +
        `by the ${descriptor.id} adapter.`,
    );
  }
  // Rule 6.
  for (const field of descriptor.fields) {
    if (!field.number) {
      continue;
    }
    const normalized = normalizePhoneNumber(kept[field.name] ?? '', defaultCountry);
    if (normalized === null) {
      throw ApiError.invalid(
        `adapter_data[${field.name}] must be a valid phone number, in international format (+…)` +
          `${defaultCountry ? ` or a national number of ${defaultCountry.toUpperCase()}` : ''}.`,
      );
    }
    kept[field.name] = normalized;
  }
  return kept;
}

/** A data value as text; JSON numbers and booleans are taken as their text, null as absent. */
function dataValue(data: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = Object.prototype.hasOwnProperty.call(data, name) ? data[name] : undefined;
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === 'string') {
    return value;
  }
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
    return String(value);
  }
  throw ApiError.invalid(`adapter_data[${name}] must be a text.`);
}

/** `adapter_data[token] (API token)`: the field and what the user must put in it. */
function describedField(field: AdapterDataField): string {
  return `adapter_data[${field.name}] (${field.description.replace(/\.$/, '')})`;
}
