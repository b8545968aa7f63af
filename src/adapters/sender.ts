import { normalizePhoneNumber } from '../common/phone/phone-number';
import { FieldRefusal } from './adapter';

/** An alphanumeric sender ID as providers take it: up to 11 letters, digits and spaces. */
export const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/** A short code, which is no international number: 3 to 8 digits. */
const SHORT_CODE = /^\d{3,8}$/;

/**
 * Why a phone's `from` (trimmed) cannot be the sender of its messages, or null when it is a
 * phone number in international format, a short code or an alphanumeric sender ID.
 */
export function senderRefusal(from: string): FieldRefusal | null {
  if (normalizePhoneNumber(from) || ALPHANUMERIC_SENDER.test(from) || SHORT_CODE.test(from)) {
    return null;
  }
  return {
    field: 'from',
    reason:
      'must be a phone number in international format, a short code, or up to 11 letters, digits and spaces.',
  };
}
