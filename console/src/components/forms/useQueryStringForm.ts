import { type FormEvent, useEffect } from 'react';
import { type DefaultValues, type FieldPath, useForm } from 'react-hook-form';
import { useLocation, useNavigate } from 'react-router';
import { showApiError } from './api-errors';

/**
 * A list's search or filters, kept in the page's query string: applying them is a new entry of
 * the browser's history (a search is a bookmark, the back button returns to the one before) and
 * the form follows the query string when the back button changes it. The list's refusal by the
 * API (a value it cannot read) is shown at the field it names.
 */
export function useQueryStringForm<V extends Record<string, string>>({
  names,
  defaults,
  error,
  onError,
  toQuery = (_name, value) => value,
}: {
  names: readonly FieldPath<V>[];
  defaults: DefaultValues<V>;
  error: Error | null;
  /** Runs before the error is shown, e.g. to unfold the form that shows it. */
  onError?: () => void;
  toQuery?: (name: FieldPath<V>, value: string) => string;
}) {
  const navigate = useNavigate();
  const { pathname, search } = useLocation();
  const form = useForm<V>({ defaultValues: defaults });
  const { reset, setError } = form;

  useEffect(() => {
    reset(defaults);
  }, [search, reset]);

  useEffect(() => {
    if (error) {
      onError?.();
      showApiError<V>(error, names, setError);
    }
  }, [error, setError]);

  function apply(values: V) {
    const query = new URLSearchParams();
    for (const name of names) {
      const value = (values as Record<string, string>)[name].trim();
      if (value) {
        query.set(name, toQuery(name, value));
      }
    }
    const text = query.toString();
    void navigate(`${pathname}${text ? `?${text}` : ''}`);
  }

  return {
    register: form.register,
    errors: form.formState.errors,
    onSubmit: (event: FormEvent<HTMLFormElement>) => void form.handleSubmit(apply)(event),
    clear: () => void navigate(pathname),
  };
}
