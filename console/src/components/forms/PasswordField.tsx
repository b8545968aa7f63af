import type { UseFormRegisterReturn } from 'react-hook-form';
import { Field } from './Field';

/** A password's field with its error; autoComplete tells the browser's manager which one. */
export function PasswordField({
  label,
  error,
  hint,
  registration,
  autoComplete,
  autoFocus = false,
}: {
  label: string;
  error?: string;
  hint?: string;
  registration: UseFormRegisterReturn;
  autoComplete: 'current-password' | 'new-password';
  autoFocus?: boolean;
}) {
  return (
    <Field
      label={label}
      error={error}
      hint={hint}
      render={(props) => (
        <input
          {...props}
          {...registration}
          type="password"
          autoComplete={autoComplete}
          autoFocus={autoFocus}
        />
      )}
    />
  );
}
