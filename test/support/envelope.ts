import { Response } from 'supertest';

/*
 * What the e2e specs assert of the API's answers: the envelope, exactly, with the status.
 * The codes and prefixes are written out rather than imported from src/, so that a change to
 * them there fails the tests instead of moving with them.
 */

export const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];

export const INVALID_CREDENTIALS = 1;
export const INVALID_PARAMETER = 2;
export const MISSING_PARAMETER = 4;
export const CANNOT_CREATE = 8;
export const SUSPENDED_USER = 16;
export const CANNOT_DELETE = 32;
export const CANNOT_UPLOAD_FILE = 64;
export const CANNOT_UPDATE = 128;

export const INVALID = 'You have specified an invalid parameter : ';
export const MISSING = 'One require parameter is missing : ';

/** A success: `value` in `response`, the links (none by default), with HTTP `status`. */
export function expectSuccess(
  response: Response,
  status: number,
  value: unknown,
  links: { next?: string | null; prev?: string | null } = {},
): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: {
      error: 0,
      message: null,
      response: value,
      next: links.next ?? null,
      prev: links.prev ?? null,
    },
  });
  expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
}

/** A failure with `code` and HTTP `status`; the message whole, or matching a pattern. */
export function expectError(
  response: Response,
  status: number,
  code: number,
  message: string | RegExp,
): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: {
      error: code,
      message: typeof message === 'string' ? message : expect.stringMatching(message),
      response: null,
      next: null,
      prev: null,
    },
  });
  expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
}

/** A value as a test's title shows it, long texts by their length. */
export const shown = (value: unknown) =>
  JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.length > 40 ? `<${item.length} characters>` : item,
  );

/** `text` escaped for a RegExp. */
export const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
