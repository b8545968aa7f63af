import { answerOf, api, type paths } from './client';

/** The signed-in user's account, with their sending quota (null: they send without limit). */
export type Account = NonNullable<
  paths['/api/me']['get']['responses'][200]['content']['application/json']['response']
>;

export type Quota = NonNullable<Account['quota']>;

/** TanStack Query's key of the account. */
export const ACCOUNT_KEY = ['account'] as const;

export function getAccount(): Promise<Account> {
  return answerOf(api.GET('/api/me'));
}

/** Changes the password; the API ends every other session of the user, and keeps this one. */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await answerOf(
    api.POST('/api/me/password', {
      body: { current_password: currentPassword, new_password: newPassword },
    }),
  );
}

/** A new API key, which the API shows only in this answer; the old key stops working at once. */
export async function newApiKey(password: string): Promise<string> {
  return (await answerOf(api.POST('/api/me/api-key', { body: { password } }))).api_key;
}
