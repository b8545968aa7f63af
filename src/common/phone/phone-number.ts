import {
  getCountries,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';

/**
 * A `+` that form or query decoding turned into a space: exactly one space, then a digit. A
 * number someone typed never starts that way
 * (docs/api-choices.md#a-plus-sign-decoded-as-a-space).
 */
const DECODED_PLUS = /^ \d/;

/**
 * The country a user's national numbers are read in: their `default_phone_country` setting, ''
 * when unset (then only international numbers are accepted).
 */
export function countryOf(user: { readonly settings: Readonly<Record<string, string>> }): string {
  return user.settings.default_phone_country ?? '';
}

/**
 * A phone number in E.164 when it is valid (full metadata, not merely possible), else null.
 * Without a country only international input (`+…`) is accepted, as in RaspiSMS; with the
 * user's `default_phone_country` (an ISO code such as `fr`) national numbers of that country
 * are accepted too (docs/api-choices.md#phone-numbers). A value starting with one space and a
 * digit is read as the `+…` that was typed; should that not be valid, it is read as before
 * (a CSV cell ` 0612345678` after `, ` stays a national number).
 */
export function normalizePhoneNumber(input: unknown, defaultCountry = ''): string | null {
  if (typeof input !== 'string' || input.trim() === '') {
    return null;
  }
  const country = defaultCountry.trim().toUpperCase();
  const region = isSupportedCountry(country) ? country : undefined;
  if (DECODED_PLUS.test(input)) {
    const typed = parsePhoneNumberFromString(`+${input.slice(1).trim()}`, region);
    if (typed?.isValid()) {
      return typed.number;
    }
  }
  const parsed = parsePhoneNumberFromString(input.trim(), region);
  return parsed?.isValid() ? parsed.number : null;
}

/** Every ISO 3166 alpha-2 code (uppercase) that numbers can be read for. */
export function countryCodes(): string[] {
  return getCountries();
}
