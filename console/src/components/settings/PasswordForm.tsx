import { changePassword } from '../../api/account';
import { FormError } from '../forms/Field';
import { PasswordField } from '../forms/PasswordField';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useApiForm } from '../forms/useApiForm';

interface Values {
  current_password: string;
  new_password: string;
  confirmation: string;
}

const FIELDS = ['current_password', 'new_password'] as const;

/**
 * Changes the password: the current one, the new one twice (the two compared here, before
 * anything is sent). The API's refusal (a wrong current password, a new one too short) is shown
 * at its field; it ends every other session of the user and keeps this one.
 */
export function PasswordForm() {
  const {
    register,
    reset,
    errors,
    mutation: change,
    onSubmit,
  } = useApiForm({
    defaultValues: { current_password: '', new_password: '', confirmation: '' },
    fields: FIELDS,
    request: (values: Values) => values,
    mutationFn: (values) => changePassword(values.current_password, values.new_password),
    onSuccess: () => {
      reset();
    },
  });
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form
        className="password-form"
        aria-labelledby="password-title"
        onSubmit={onSubmit}
        noValidate
      >
        <PasswordField
          label="Current password"
          error={errors.current_password?.message}
          registration={register('current_password')}
          autoComplete="current-password"
        />
        <PasswordField
          label="New password"
          error={errors.new_password?.message}
          hint="10 to 1,024 characters."
          registration={register('new_password')}
          autoComplete="new-password"
        />
        <PasswordField
          label="New password again"
          error={errors.confirmation?.message}
          registration={register('confirmation', {
            validate: (value, values) =>
              value === values.new_password || 'The two new passwords differ: type it again.',
          })}
          autoComplete="new-password"
        />
        <FormError errors={errors} />
        {change.isSuccess && (
          <SavedNote>
            Password changed. Every other session of your account was ended (other browsers and
            devices sign in again with the new password); this one goes on.
          </SavedNote>
        )}
        <SubmitButton
          label="Change the password"
          pendingLabel="Changing…"
          pending={change.isPending}
        />
      </form>
    </section>
  );
}
