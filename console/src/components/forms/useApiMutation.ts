import { useMutation, type UseMutationOptions } from '@tanstack/react-query';
import type { FieldPath, FieldValues, UseFormSetError } from 'react-hook-form';
import { showApiError } from './api-errors';

/**
 * A form's request: the API's refusal goes to the field it names (showApiError), after the
 * caller's own onError if it has one.
 */
export function useApiMutation<TData, TVariables, V extends FieldValues>({
  fields,
  setError,
  onError,
  ...options
}: UseMutationOptions<TData, Error, TVariables> & {
  fields: readonly FieldPath<V>[];
  setError: UseFormSetError<V>;
}) {
  return useMutation<TData, Error, TVariables>({
    ...options,
    onError: (...args) => {
      void onError?.(...args);
      showApiError<V>(args[0], fields, setError);
    },
  });
}
