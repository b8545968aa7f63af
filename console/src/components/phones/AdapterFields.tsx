import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import type { AdapterDescription, AdapterField } from '../../api/adapters';
import type { PhoneSettings } from '../../api/phones';
import { Field } from '../forms/Field';
import type { PhoneFormValues } from './phone-form';

/**
 * The adapter's data fields, made from its descriptor as get_adapters gives it: a new provider
 * shows its own fields here without any change to the console. Editing a phone, the other
 * fields show their stored values (get_phone); secrets are never shown back, only whether one
 * is set, and an empty one keeps it.
 */
export function AdapterFields({
  adapter,
  register,
  errors,
  stored,
}: {
  adapter: AdapterDescription;
  register: UseFormRegister<PhoneFormValues>;
  errors: FieldErrors<PhoneFormValues>;
  /** The phone being edited, when it has this adapter: its stored values may be kept. */
  stored: PhoneSettings | null;
}) {
  if (adapter.fields.length === 0) {
    return <p className="hint">The {adapter.name} adapter takes no settings.</p>;
  }
  return (
    <>
      {stored?.dataError && (
        <p className="error data-error" role="alert">
          {problemOf(stored)}
        </p>
      )}
      {adapter.fields.map((field) => (
        <Field
          key={`${adapter.id}.${field.name}`}
          label={`${field.name}${field.required ? ' (required)' : ''}`}
          error={errors.data?.[field.name]?.message}
          hint={hintOf(field, stored)}
          render={(props) => (
            <input
              {...props}
              {...register(`data.${field.name}`)}
              type={field.secret ? 'password' : field.number ? 'tel' : 'text'}
              autoComplete={field.secret ? 'new-password' : field.number ? 'tel' : 'off'}
              aria-required={field.required}
            />
          )}
        />
      ))}
    </>
  );
}

function hintOf(field: AdapterField, stored: PhoneSettings | null): string {
  const notes = [field.description];
  if (field.number) {
    notes.push('A phone number (+33…).');
  }
  if (stored && field.secret) {
    if (stored.unreadableSecrets.includes(field.name)) {
      notes.push('The stored value can no longer be decrypted by the server: type it again.');
    } else if (stored.secretsSet.includes(field.name)) {
      notes.push('A value is set; it is never shown. Leave empty to keep it, or type a new one.');
    } else {
      notes.push('No value is set.');
    }
  }
  return notes.join(' ');
}

/** What is wrong with the stored data, told for the form when the console knows what to do. */
function problemOf({ unreadableSecrets, dataError }: PhoneSettings): string {
  if (unreadableSecrets.length === 0) {
    return `${dataError!.charAt(0).toUpperCase()}${dataError!.slice(1)}`;
  }
  const them = unreadableSecrets.length > 1 ? 'them' : 'it';
  return (
    `The stored ${unreadableSecrets.join(' and ')} can no longer be decrypted by the server ` +
    `(its secrets key changed, or what is stored was altered): type ${them} again and save. ` +
    'The phone cannot send until then.'
  );
}
