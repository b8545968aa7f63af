import type { Contact, ContactFields } from '../../api/contacts';
import { Field } from '../forms/Field';
import { useApiForm } from '../forms/useApiForm';
import { NamedEntryForm } from './NamedEntryPages';
import type { EntryFormProps } from './named-entry';
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
  const form = useApiForm({
    defaultValues: valuesOf(contact),
    fields: FIELDS,
    request: (values: Values, setError): ContactFields | undefined => {
      const data = readDataText(values.data);
      if (data instanceof Error) {
        setError('data', { type: 'json', message: data.message });
        return undefined;
      }
      return { name: values.name, number: values.number, data };
    },
    mutationFn: save,
    onSuccess: async (saved) => {
      await onSaved(saved);
      if (contact) {
        form.reset(undefined, { keepValues: true });
      }
    },
  });
  const { register, errors } = form;

  return (
    <NamedEntryForm
      form={form}
      name={register('name')}
      editing={contact !== undefined}
      submitLabel={submitLabel}
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
