import { useMutation } from '@tanstack/react-query';
import { useFieldArray, useForm } from 'react-hook-form';
import type { AdapterDescription } from '../../api/adapters';
import { createPhone, type PhoneSettings, type PhoneWrite, updatePhone } from '../../api/phones';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';
import { AdapterFields } from './AdapterFields';
import {
  emptiedRequired,
  PHONE_FIELDS,
  type PhoneFormValues,
  valuesOf,
  writeOf,
} from './phone-form';

/**
 * Adds a phone, or changes one: its name, its adapter with the adapter's own fields (made from
 * get_adapters), its priority, rate and limits. Editing starts from the phone as get_phone reads
 * it, its non-secret adapter data included, and sends only what changed, the adapter data whole
 * but without the secrets left empty, which stay as stored. The API's refusal is shown at the
 * field it names, adapter data fields included.
 */
export function PhoneForm({
  adapters,
  phone,
  onSaved,
}: {
  adapters: AdapterDescription[];
  phone: PhoneSettings | null;
  onSaved: (id: number) => unknown;
}) {
  const defaults = valuesOf(phone, adapters[0]?.id ?? '');
  const {
    register,
    control,
    handleSubmit,
    reset,
    setError,
    watch,
    formState: { errors, dirtyFields, isDirty },
  } = useForm<PhoneFormValues>({ defaultValues: defaults });
  const limits = useFieldArray({ control, name: 'limits' });
  const adapter = adapters.find((candidate) => candidate.id === watch('adapter'));
  const save = useMutation({
    mutationFn: async (write: PhoneWrite) => {
      if (!phone) {
        return createPhone(write);
      }
      await updatePhone(phone.id, write);
      return phone.id;
    },
    onSuccess: async (id, write) => {
      reset({ ...watch(), data: keptData(watch().data, write, adapter) });
      await onSaved(id);
    },
    onError: (error) => {
      const field = /adapter_data\[(\w+)\]/.exec(error.message)?.[1];
      if (field && adapter?.fields.some((candidate) => candidate.name === field)) {
        setError(`data.${field}`, { type: 'api', message: error.message });
      } else {
        showApiError<PhoneFormValues>(error, PHONE_FIELDS, setError);
      }
    },
  });

  function submit(values: PhoneFormValues) {
    if (!adapter) {
      setError('adapter', { type: 'form', message: 'Choose an adapter.' });
      return;
    }
    const emptied = emptiedRequired(values, adapter, phone);
    for (const name of emptied) {
      setError(`data.${name}`, { type: 'form', message: `${name} is required: type its value.` });
    }
    if (emptied.length > 0) {
      return;
    }
    save.mutate(
      writeOf(values, adapter, phone, {
        name: dirtyFields.name,
        data: Object.values(dirtyFields.data ?? {}).some(Boolean),
        priority: dirtyFields.priority,
        rate: dirtyFields.rate,
        limits: JSON.stringify(values.limits) !== JSON.stringify(defaults.limits),
      }),
    );
  }

  return (
    <form className="phone-form" onSubmit={(event) => void handleSubmit(submit)(event)} noValidate>
      <Field
        label="Name"
        error={errors.name?.message}
        hint="Unique among your phones."
        render={(props) => <input {...props} {...register('name')} autoComplete="off" />}
      />
      <Field
        label="Adapter"
        error={errors.adapter?.message}
        hint={adapter && `${adapter.description} ${capabilitiesText(adapter)}`}
        render={(props) => (
          <select {...props} {...register('adapter')}>
            {adapters.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name} ({candidate.id})
              </option>
            ))}
          </select>
        )}
      />
      {adapter && (
        <fieldset className="adapter-fields">
          <legend>{adapter.name} settings</legend>
          <AdapterFields
            adapter={adapter}
            register={register}
            errors={errors}
            stored={phone !== null && phone.adapter === adapter.id ? phone : null}
          />
        </fieldset>
      )}
      <div className="phone-numbers">
        <Field
          label="Priority"
          error={errors.priority?.message}
          hint="Higher is chosen first when the setting phone_priority is on."
          render={(props) => (
            <input {...props} {...register('priority')} inputMode="numeric" autoComplete="off" />
          )}
        />
        <Field
          label="Rate (messages a second)"
          error={errors.rate?.message}
          hint="0.5 is one every two seconds; empty for no pacing."
          render={(props) => (
            <input {...props} {...register('rate')} inputMode="decimal" autoComplete="off" />
          )}
        />
      </div>
      <fieldset className="phone-limits">
        <legend>Limits</legend>
        <p className="hint">
          At most a number of messages since a relative date: today, -24 hours, this week midnight…
        </p>
        {limits.fields.map((limit, index) => (
          <div className="limit-row" key={limit.id}>
            <Field
              label={`Limit ${index + 1}: messages`}
              render={(props) => (
                <input {...props} {...register(`limits.${index}.volume`)} inputMode="numeric" />
              )}
            />
            <Field
              label={`Limit ${index + 1}: since`}
              render={(props) => <input {...props} {...register(`limits.${index}.startpoint`)} />}
            />
            <button
              type="button"
              className="secondary"
              aria-label={`Remove limit ${index + 1}`}
              onClick={() => limits.remove(index)}
            >
              Remove
            </button>
          </div>
        ))}
        {errors.limits?.message && (
          <p className="error" role="alert">
            {errors.limits.message}
          </p>
        )}
        <button
          type="button"
          className="secondary"
          onClick={() => limits.append({ volume: '', startpoint: 'today' })}
        >
          Add a limit
        </button>
      </fieldset>
      <FormError errors={errors} />
      {save.isSuccess && !isDirty && phone && (
        <p role="status" className="saved">
          Saved.
        </p>
      )}
      <button type="submit" disabled={save.isPending || (phone !== null && !isDirty)}>
        {save.isPending ? 'Saving…' : phone ? 'Save changes' : 'Add the phone'}
      </button>
    </form>
  );
}

function capabilitiesText(adapter: AdapterDescription): string {
  const { flash, mms } = adapter.capabilities;
  return `Flash SMS: ${flash ? 'yes' : 'no'}. MMS: ${mms ? 'yes' : 'no, medias go as links'}.`;
}

/** Once saved, the secrets typed are cleared from the form: they are never shown back. */
function keptData(
  data: Record<string, string>,
  write: PhoneWrite,
  adapter: AdapterDescription | undefined,
): Record<string, string> {
  if (!write.adapter_data || !adapter) {
    return data;
  }
  const secrets = new Set(adapter.fields.filter((field) => field.secret).map((f) => f.name));
  return Object.fromEntries(
    Object.entries(data).map(([name, value]) => [name, secrets.has(name) ? '' : value]),
  );
}
