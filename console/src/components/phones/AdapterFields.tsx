import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import type { AdapterDescription, AdapterField } from '../../api/adapters';
import { Field } from '../forms/Field';
import type { PhoneFormValues } from './phone-form';

/**
 * The adapter's data fields, made from its descriptor as get_adapters gives it: a new provider
 * shows its own fields here without any change to the console. Secrets are never shown back:
 * editing a phone, the field says a value is stored and an empty one keeps it.
 */
export function AdapterFields({
  adapter,
  register,
  errors,
  editing,
  dataShown,
}: {
  adapter: AdapterDescription;
  register: UseFormRegister<PhoneFormValues>;
  errors: FieldErrors<PhoneFormValues>;
  /** Whether the phone exists already (its stored values may be kept). */
  editing: boolean;
  /** Whether the API listed the phone's (non-secret) data, which the form then shows. */
  dataShown: boolean;
}) {
  if (adapter.fields.length === 0) {
    return <p className="hint">The {adapter.name} adapter takes no settings.</p>;
  }
  return (
    <>
      {adapter.fields.map((field) => (
        <Field
          key={`${adapter.id}.${field.name}`}
          label={`${field.name}${field.required ? ' (required)' : ''}`}
          error={errors.data?.[field.name]?.message}
          hint={hintOf(field, editing, dataShown)}
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

function hintOf(field: AdapterField, editing: boolean, dataShown: boolean): string {
  const notes = [field.description];
  if (field.number) {
    notes.push('A phone number (+33…).');
  }
  if (editing && field.secret) {
    notes.push(
      field.required
        ? 'A value is set; it is never shown. Leave empty to keep it, or type a new one.'
        : 'Never shown: leave empty to keep what is stored, or type a new value.',
    );
  } else if (editing && !dataShown) {
    notes.push(
      field.required
        ? 'Stored, not shown for this adapter: leave empty to keep it.'
        : 'Not shown for this adapter: when you change its settings, type it again or it is removed.',
    );
  }
  return notes.join(' ');
}
