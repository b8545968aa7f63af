import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { addStop } from '../../api/stop-list';
import { Field, FormError } from '../forms/Field';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useApiMutation } from '../forms/useApiMutation';

interface Values {
  number: string;
}

/** Adds a number to the STOP list; the API reads it (national in the default country) or says why not. */
export function StopNumberForm({ onAdded }: { onAdded: () => unknown }) {
  const [added, setAdded] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<Values>({ defaultValues: { number: '' } });
  const add = useApiMutation({
    mutationFn: ({ number }: Values) => addStop(number),
    onSuccess: async (_id, { number }) => {
      setAdded(number);
      reset();
      await onAdded();
    },
    onError: () => setAdded(null),
    fields: ['number'],
    setError,
  });
  return (
    <form
      className="stop-add"
      aria-label="Add a number to the STOP list"
      onSubmit={(event) => void handleSubmit((values) => add.mutate(values))(event)}
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
