import { utcToZone } from '../common/time/datetime';
import { isExpired, QuotaState, remainingOf } from '../users/quota';

/** How the error of a recipient that its user's quota cannot cover starts. */
export const QUOTA_SPENT = 'The sending quota is spent';

/** How the error of a recipient whose user's quota expired without renewal starts. */
export const QUOTA_EXPIRED = 'The sending quota expired';

/** A user's quota as a claim spends it. */
export interface QuotaBudget {
  quota: QuotaState;
  /** Segments the claim may still reserve. */
  left: number;
}

/** The budget of a user's quota for a claim. */
export function quotaBudget(quota: QuotaState): QuotaBudget {
  return { quota, left: remainingOf(quota) };
}

/** Takes `segments` off the budget; or why the row cannot have them. */
export function spendQuota(
  budget: QuotaBudget,
  segments: number,
  now: string,
  timeZone: string,
): string | null {
  const { quota } = budget;
  const end = utcToZone(quota.expiration_date, timeZone);
  if (isExpired(quota, now)) {
    return `${QUOTA_EXPIRED} on ${end} and does not renew itself: nothing is sent until the administrator sets it again.`;
  }
  if (segments > budget.left) {
    return (
      `${QUOTA_SPENT}: this message needs ${segments} SMS segment${segments > 1 ? 's' : ''} ` +
      `and ${budget.left} ${budget.left === 1 ? 'is' : 'are'} left until ${end}.`
    );
  }
  budget.left -= segments;
  return null;
}
