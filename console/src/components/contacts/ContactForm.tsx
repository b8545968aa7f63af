import { useForm } from 'react-hook-form';
import type { Contact, ContactFields } from '../../api/contacts';
import { Field } from '../forms/Field';
import { useApiMutation } from '../forms/useApiMutation';
import { type EntryFormProps, NamedEntryForm } from './NamedEntryPages';
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
  entry: contact,
  save,
  onSaved,
  submitLabel,
}: EntryFormProps<Contact, ContactFields>) {
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<Values>({ defaultValues: valuesOf(contact) });
  const mutation = useApiMutation({
    mutationFn: save,
    onSuccess: async (saved) => {
      await onSaved(saved);
      if (contact) {
        reset(undefined, { keepValues: true });
      }
    },
    fields: FIELDS,
    setError,
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
    <NamedEntryForm
      submitLabel={submitLabel}
      onSubmit={(event) => void handleSubmit(submit)(event)}
      name={register('name')}
      nameError={errors.name?.message}
      errors={errors}
      pending={mutation.isPending}
      saved={mutation.isSuccess && contact !== undefined}
    >
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
    </NamedEntryForm>
  );
}
