import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import {
  createPhoneGroup,
  type PhoneGroup,
  type PhoneGroupWrite,
  updatePhoneGroup,
} from '../../api/phone-groups';
import { listPhoneStatuses, PHONE_STATUSES_KEY } from '../../api/phones';
import { LoadError } from '../common/LoadError';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';

interface Values {
  name: string;
  phones: string[];
}

const FIELDS = ['name', 'phones'] as const;

/** Creates a phone group or changes one: its name and which of the caller's phones it holds. */
export function PhoneGroupForm({
  group,
  onSaved,
}: {
  group: PhoneGroup | null;
  onSaved: (id: number) => unknown;
}) {
  const phones = useQuery({ queryKey: PHONE_STATUSES_KEY, queryFn: listPhoneStatuses });
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isDirty },
  } = useForm<Values>({
    defaultValues: {
      name: group?.name ?? '',
      phones: (group?.phones ?? []).map((phone) => String(phone.id)),
    },
  });
  const save = useMutation({
    mutationFn: async (write: PhoneGroupWrite & { name: string }) =>
      group ? (await updatePhoneGroup(group.id, write)).id : createPhoneGroup(write),
    onSuccess: async (id, write) => {
      reset({ name: write.name, phones: (write.phones ?? []).map(String) });
      await onSaved(id);
    },
    onError: (error) => showApiError<Values>(error, FIELDS, setError),
  });

  if (phones.isError) {
    return <LoadError error={phones.error} retry={phones.refetch} />;
  }
  return (
    <form
      className="phone-group-form"
      onSubmit={(event) =>
        void handleSubmit((values) =>
          save.mutate({ name: values.name.trim(), phones: values.phones.map(Number) }),
        )(event)
      }
      noValidate
    >
      <Field
        label="Name"
        error={errors.name?.message}
        render={(props) => <input {...props} {...register('name')} autoComplete="off" />}
      />
      <fieldset className="phone-choices" aria-describedby="phone-choices-error">
        <legend>Phones</legend>
        {phones.isPending && <p role="status">Loading the phones…</p>}
        {phones.data?.length === 0 && <p>You have no phone yet.</p>}
        {phones.data?.map((phone) => (
          <label key={phone.id} className="checkbox">
            <input type="checkbox" value={String(phone.id)} {...register('phones')} /> {phone.name}{' '}
            <span className="hint">({phone.status.replace('_', ' ')})</span>
          </label>
        ))}
        {errors.phones?.message && (
          <p id="phone-choices-error" className="error" role="alert">
            {errors.phones.message}
          </p>
        )}
      </fieldset>
      <FormError errors={errors} />
      {save.isSuccess && !isDirty && group && (
        <p role="status" className="saved">
          Saved.
        </p>
      )}
      <button type="submit" disabled={save.isPending || (group !== null && !isDirty)}>
        {save.isPending ? 'Saving…' : group ? 'Save changes' : 'Add the phone group'}
      </button>
    </form>
  );
}
