import { SendResult } from '../adapters/adapter';

/**
 * Failover (docs/dispatch.md#failover): a recipient of a message that named no phone, refused
 * for a reason of its phone, goes through another phone of its route, up to FAILOVER_PHONES.
 */

/**
 * Whether a send's outcome is its phone's failure, which another phone may not have: a refusal
 * whose cause is the phone, or transient failures (certainly not taken) that used up their
 * attempts (`exhausted`). A send that may have reached the provider never is: it would go twice.
 */
export function isPhoneFailure(
  result: SendResult,
  exhausted: boolean,
): result is Extract<SendResult, { outcome: 'permanent' | 'transient' }> {
  if (result.outcome === 'permanent') {
    return result.cause === 'phone';
  }
  return result.outcome === 'transient' && exhausted;
}
