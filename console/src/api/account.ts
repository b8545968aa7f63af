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
