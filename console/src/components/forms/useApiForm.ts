import type { UseMutationOptions } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import {
  type DefaultValues,
  type FieldPath,
  type FieldValues,
  useForm,
  type UseFormSetError,
} from 'react-hook-form';
import { useApiMutation } from './useApiMutation';

/**
 * A form that sends its values to the API: its fields, its request (the API's refusal shown at
 * the field it names) and the submit handler that sends what `request` makes of the values.
 * A value the form checks itself is refused by `request` with setError, and nothing is sent.
 */
export function useApiForm<V extends FieldValues, TData, TVariables>({
  defaultValues,
  fields,
  request,
  ...options
}: UseMutationOptions<TData, Error, TVariables> & {
  defaultValues: DefaultValues<V>;
  fields: readonly FieldPath<V>[];
  request: (values: V, setError: UseFormSetError<V>) => TVariables | undefined;
}) {
  const form = useForm<V>({ defaultValues });
  const mutation = useApiMutation<TData, TVariables, V>({
    ...options,
    fields,
    setError: form.setError,
  });
  return {
    ...form,
    errors: form.formState.errors,
    mutation,
    onSubmit: (event: FormEvent<HTMLFormElement>) =>
      void form.handleSubmit((values) => {
        const variables = request(values, form.setError);
        if (variables !== undefined) {
          mutation.mutate(variables);
        }
      })(event),
  };
}
