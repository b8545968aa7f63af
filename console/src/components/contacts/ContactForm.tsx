import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import type { Contact, ContactFields } from '../../api/contacts';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';
import { dataText, readDataText } from './contact-data';

interface Values {
  name: string;
  number: string;
  data: string;
}

const FIELDS = ['name', 'number', 'data'] as const;

function valuesOf(contact?: Contact): Values {
  return {
    name: contact?.name ?? '',
    number: contact?.number ?? '',
    data: dataText(contact?.data ?? null),
  };
}

/**
 * A contact's name, number and template data, to create one or change one. The API checks them
 * (a number it cannot read, a name already used, data it does not take) and its message is
 * shown at the field it names.
 */
export function ContactForm({
  contact,
  save,
  onSaved,
  submitLabel,
}: {
  contact?: Contact;
  save: (fields: ContactFields) => Promise<unknown>;
  onSaved: (saved: unknown) => unknown;
  submitLabel: string;
}) {
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<Values>({ defaultValues: valuesOf(contact) });
  const mutation = useMutation({
    mutationFn: save,
    onSuccess: async (saved) => {
      await onSaved(saved);
      if (contact) {
        reset(undefined, { keepValues: true });
      }
    },
    onError: (error) => showApiError<Values>(error, FIELDS, setError),
  });

  function submit(values: Values) {
    const data = readDataText(values.data);
    if (data instanceof Error) {
      setError('data', { type: 'json', message: data.message });
      return;
    }
    mutation.mutate({ name: values.name, number: values.number, data });
  }

  return (
    <form
      className="entry-form"
      onSubmit={(event) => void handleSubmit(submit)(event)}
      noValidate
      aria-label={submitLabel}
    >
      <Field
        label="Name"
        error={errors.name?.message}
        render={(props) => <input {...props} {...register('name')} autoComplete="off" />}
      />
      <Field
        label="Number"
        error={errors.number?.message}
        hint="International format (+33…), or national in your default country."
        render={(props) => (
          <input {...props} {...register('number')} type="tel" autoComplete="off" />
        )}
      />
      <Field
        label="Data"
        error={errors.data?.message}
        hint={
          <>
            A JSON object of text, number or true/false values, used by templates (
            <code>{'{{ contact.firstname }}'}</code>) and conditions.
          </>
        }
        render={(props) => (
          <textarea
            {...props}
            {...register('data')}
            rows={4}
            spellCheck={false}
            placeholder={'{"firstname": "Ada"}'}
          />
        )}
      />
      <FormError errors={errors} />
      <button type="submit" disabled={mutation.isPending}>
        {mutation.isPending ? 'Saving…' : submitLabel}
      </button>
      {mutation.isSuccess && contact && (
        <p className="saved" role="status">
          Saved.
        </p>
      )}
    </form>
  );
}
