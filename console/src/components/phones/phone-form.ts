import type { AdapterDescription } from '../../api/adapters';
import type { PhoneSettings, PhoneWrite } from '../../api/phones';

/** What the phone form holds: texts as typed, the adapter data by field name. */
export interface PhoneFormValues {
  name: string;
  adapter: string;
  data: Record<string, string>;
  priority: string;
  rate: string;
  limits: Array<{ volume: string; startpoint: string }>;
}

/** The form's fields that the API's messages name, beside adapter_data[…]. */
export const PHONE_FIELDS = ['name', 'adapter', 'priority', 'rate', 'limits'] as const;

export function valuesOf(phone: PhoneSettings | null, firstAdapter: string): PhoneFormValues {
  return {
    name: phone?.name ?? '',
    adapter: phone?.adapter ?? firstAdapter,
    data: { ...(phone?.adapterData ?? {}) },
    priority: String(phone?.priority ?? 0),
    rate: phone?.rate === null || phone?.rate === undefined ? '' : String(phone.rate),
    limits: (phone?.limits ?? []).map((limit) => ({
      volume: String(limit.volume),
      startpoint: limit.startpoint,
    })),
  };
}

/**
 * The adapter data to send: the adapter's fields only (another adapter's, typed before it was
 * changed, are left behind). Editing, an empty field is left out: the API keeps a secret or a
 * required field left out, and removes an optional one, which the person then emptied (its
 * stored value was in the form).
 */
export function adapterDataOf(
  values: PhoneFormValues,
  adapter: AdapterDescription,
  keepsStored: boolean,
): Record<string, string> {
  const data: Record<string, string> = {};
  for (const field of adapter.fields) {
    const value = (values.data[field.name] ?? '').trim();
    if (value === '' && keepsStored) {
      continue;
    }
    if (value !== '' || field.required) {
      data[field.name] = value;
    }
  }
  return data;
}

/** The phone as post_phone takes it, or the changes post_update_phone takes. */
export function writeOf(
  values: PhoneFormValues,
  adapter: AdapterDescription,
  phone: PhoneSettings | null,
  dirty: Partial<Record<'name' | 'data' | 'priority' | 'rate' | 'limits', boolean>>,
): PhoneWrite {
  // Sent as typed: the API's own checks name the field that is wrong, in its words.
  const rate = values.rate.trim();
  const priority = values.priority.trim();
  const limits = values.limits.map((limit) => ({
    volume: limit.volume.trim(),
    startpoint: limit.startpoint.trim(),
  }));
  if (!phone) {
    return {
      name: values.name.trim(),
      adapter: values.adapter,
      adapter_data: adapterDataOf(values, adapter, false),
      ...(priority === '' ? {} : { priority }),
      ...(rate === '' ? {} : { rate }),
      ...(limits.length === 0 ? {} : { limits }),
    };
  }
  const sameAdapter = values.adapter === phone.adapter;
  const write: PhoneWrite = {};
  if (dirty.name) {
    write.name = values.name.trim();
  }
  if (!sameAdapter || dirty.data) {
    write.adapter = values.adapter;
    write.adapter_data = adapterDataOf(values, adapter, sameAdapter);
  }
  if (dirty.priority) {
    write.priority = priority;
  }
  if (dirty.rate) {
    write.rate = rate;
  }
  if (dirty.limits) {
    write.limits = limits;
  }
  return write;
}

/**
 * The required non-secret fields emptied while editing: the API would keep their stored value,
 * which is not what the person asked, so the form says they are required instead.
 */
export function emptiedRequired(
  values: PhoneFormValues,
  adapter: AdapterDescription,
  phone: PhoneSettings | null,
): string[] {
  if (!phone || phone.adapter !== values.adapter) {
    return [];
  }
  return adapter.fields
    .filter((field) => field.required && !field.secret)
    .filter((field) => (values.data[field.name] ?? '').trim() === '')
    .map((field) => field.name);
}
