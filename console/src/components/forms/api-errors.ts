import type { FieldPath, FieldValues, UseFormSetError } from 'react-hook-form';
import { ApiError } from '../../api/client';

/** Where a form shows an error that names none of its fields. */
export const FORM_ERROR = 'root.api';

/**
 * Shows the API's refusal at the field it names. The API's messages read
 * `<what is wrong> : <parameter> <why>` (`You have specified an invalid parameter : text is
 * longer than 1000 characters.`), so the field is the first of the form's named after the colon;
 * a message that names none, or an error that is not the API's, goes to the form as a whole.
 */
export function showApiError<T extends FieldValues>(
  error: unknown,
  fields: readonly FieldPath<T>[],
  setError: UseFormSetError<T>,
): void {
  const message = error instanceof Error ? error.message : String(error);
  const field = error instanceof ApiError ? fieldNamed(message, fields) : undefined;
  setError(field ?? FORM_ERROR, { type: 'api', message });
}

function fieldNamed<F extends string>(message: string, fields: readonly F[]): F | undefined {
  const colon = message.indexOf(' : ');
  const detail = colon >= 0 ? message.slice(colon + 3) : message;
  let found: { field: F; at: number } | undefined;
  for (const field of fields) {
    const at = detail.search(new RegExp(`(^|[^\\w])${field}([^\\w]|$)`));
    if (at >= 0 && (found === undefined || at < found.at)) {
      found = { field, at };
    }
  }
  return found?.field;
}
