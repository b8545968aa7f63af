import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { login, SESSION_KEY } from '../api/session';
import { HOME_PATH } from '../navigation';

/** The sign-in page: email and password, and the API's own message when it refuses them. */
export function SignIn() {
  const id = useId();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const queryClient = useQueryClient();
  const signIn = useMutation({
    mutationFn: ({ email, password }: { email: string; password: string }) =>
      login(email, password),
    onSuccess: async (session) => {
      queryClient.setQueryData(SESSION_KEY, session);
      await navigate(returnPath(search.get('next')), { replace: true });
    },
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const { elements } = event.currentTarget;
    const value = (name: string) => (elements.namedItem(name) as HTMLInputElement).value;
    signIn.mutate({ email: value('email'), password: value('password') });
  }

  return (
    <main className="sign-in">
      <h1>Sign in to smsgw</h1>
      <form onSubmit={submit} aria-describedby={signIn.isError ? `${id}-error` : undefined}>
        <label htmlFor={`${id}-email`}>Email</label>
        <input id={`${id}-email`} name="email" type="email" autoComplete="username" required />
        <label htmlFor={`${id}-password`}>Password</label>
        <input
          id={`${id}-password`}
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        {signIn.isError && (
          <p id={`${id}-error`} className="error" role="alert">
            {signIn.error.message}
          </p>
        )}
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Where to go after sign-in: the page the person was sent from, if it is one of ours. */
function returnPath(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : HOME_PATH;
}
