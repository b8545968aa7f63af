import { type ReactNode, useId } from 'react';
import type { FieldErrors } from 'react-hook-form';
import { FORM_ERROR } from './api-errors';

/** What a field's control needs to be labelled and to announce its error. */
export interface ControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby'?: string;
}

/**
 * One field of a form: its label, its control and the error shown under it (the API's, placed
 * by showApiError, or the form's own check). The control is rendered by the caller with the
 * props that tie it to both.
 */
export function Field({
  label,
  error,
  hint,
  render,
}: {
  label: string;
  error?: string;
  hint?: ReactNode;
  render: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {render({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described || undefined })}
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <p id={`${id}-error`} className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** The error of the form as a whole: an API refusal that names none of its fields. */
export function FormError({ errors }: { errors: FieldErrors }) {
  const root = errors.root;
  const message = root?.[FORM_ERROR.slice('root.'.length)]?.message;
  return message ? (
    <p className="error" role="alert">
      {message}
    </p>
  ) : null;
}
