import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * A phone number in E.164 when it is valid (full metadata, not merely possible), else null.
 * Without a country only international input (`+…`) is accepted, as in RaspiSMS; with the
 * user's `default_phone_country` (an ISO code such as `fr`) national numbers of that country
 * are accepted too (docs/api-choices.md#phone-numbers).
 */
export function normalizePhoneNumber(input: unknown, defaultCountry = ''): string | null {
  if (typeof input !== 'string' || input.trim() === '') {
    return null;
  }
  const country = defaultCountry.trim().toUpperCase();
  const region = isSupportedCountry(country) ? country : undefined;
  const parsed = parsePhoneNumberFromString(input.trim(), region);
  return parsed?.isValid() ? parsed.number : null;
}

/** Whether `code` is an ISO 3166 alpha-2 country code that numbers can be read for, in any case. */
export function isCountryCode(code: string): boolean {
  return /^[a-z]{2}$/i.test(code) && isSupportedCountry(code.toUpperCase());
}
