import { useState } from 'react';
import { addStop } from '../../api/stop-list';
import { Field, FormError } from '../forms/Field';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useApiForm } from '../forms/useApiForm';

interface Values {
  number: string;
}

/** Adds a number to the STOP list; the API reads it (national in the default country) or says why not. */
export function StopNumberForm({ onAdded }: { onAdded: () => unknown }) {
  const [added, setAdded] = useState<string | null>(null);
  const {
    register,
    reset,
    errors,
    mutation: add,
    onSubmit,
  } = useApiForm({
    defaultValues: { number: '' },
    fields: ['number'],
    request: ({ number }: Values) => number,
    mutationFn: addStop,
    onSuccess: async (_id, number) => {
      setAdded(number);
      reset();
      await onAdded();
    },
    onError: () => setAdded(null),
  });
  return (
    <form
      className="stop-add"
      aria-label="Add a number to the STOP list"
      onSubmit={onSubmit}
      noValidate
    >
      <Field
        label="Number to stop"
        error={errors.number?.message}
        hint="International (+33…), or national in your default country."
        render={(props) => (
          <input {...props} {...register('number')} type="tel" autoComplete="off" />
        )}
      />
      <FormError errors={errors} />
      {added && <SavedNote>{added} is on the STOP list.</SavedNote>}
      <SubmitButton label="Add to the STOP list" pendingLabel="Adding…" pending={add.isPending} />
    </form>
  );
}
