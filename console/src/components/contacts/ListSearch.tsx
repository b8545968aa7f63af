import { useSearchParams } from 'react-router';
import { Field, FormError } from '../forms/Field';
import { useQueryStringForm } from '../forms/useQueryStringForm';

/** A search field: get_entries' filter name, which is also its name in the page's address. */
export interface SearchField {
  name: string;
  label: string;
  inputMode?: 'tel' | 'text';
}

type Values = Record<string, string>;

/** The searched values in the page's address, by filter name. */
export function useSearchValues(fields: readonly SearchField[]): Record<string, string> {
  const [search] = useSearchParams();
  const values: Record<string, string> = {};
  for (const { name } of fields) {
    const value = search.get(name);
    if (value) {
      values[name] = value;
    }
  }
  return values;
}

/**
 * A list's search, kept in the page's address as get_entries' filters. A value the API refuses,
 * a number that is not one, shows the API's message at its field.
 */
export function ListSearch({
  label,
  fields,
  error,
}: {
  label: string;
  fields: readonly SearchField[];
  error: Error | null;
}) {
  const current = useSearchValues(fields);
  const names = fields.map((field) => field.name);
  const defaults = Object.fromEntries(names.map((name) => [name, current[name] ?? '']));
  const { register, errors, onSubmit, clear } = useQueryStringForm<Values>({
    names,
    defaults,
    error,
  });

  return (
    <form className="list-search" role="search" aria-label={label} onSubmit={onSubmit}>
      <div className="search-fields">
        {fields.map((field) => (
          <Field
            key={field.name}
            label={field.label}
            error={errors[field.name]?.message}
            render={(props) => (
              <input
                {...props}
                {...register(field.name)}
                type="search"
                inputMode={field.inputMode}
                autoComplete="off"
              />
            )}
          />
        ))}
        <div className="search-actions">
          <button type="submit">Search</button>
          {Object.keys(current).length > 0 && (
            <button type="button" className="secondary" onClick={clear}>
              Clear
            </button>
          )}
        </div>
      </div>
      <FormError errors={errors} />
    </form>
  );
}
