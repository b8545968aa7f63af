import { SendResult } from '../adapters/adapter';
import { isPhoneFailure } from './failover';

describe('isPhoneFailure', () => {
  it.each<[string, SendResult, boolean, boolean]>([
    ['a refusal of the phone', { outcome: 'permanent', reason: 'x', cause: 'phone' }, false, true],
    [
      'a refusal of the recipient',
      { outcome: 'permanent', reason: 'x', cause: 'recipient' },
      false,
      false,
    ],
    ['a transient failure with attempts left', { outcome: 'transient', reason: 'x' }, false, false],
    [
      'transient failures that used up their attempts',
      { outcome: 'transient', reason: 'x' },
      true,
      true,
    ],
    ['a send the provider may have taken', { outcome: 'ambiguous', reason: 'x' }, true, false],
    ['a send', { outcome: 'sent', uid: '1' }, false, false],
  ])('%s: %p', (_name, result, exhausted, failure) => {
    expect(isPhoneFailure(result, exhausted)).toBe(failure);
  });
});
