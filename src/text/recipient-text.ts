import { toGsmAlphabet } from '../common/text/gsm';

/** The longest text a message may carry, also once rendered or transliterated. */
export const MAX_TEXT = 1000;

/**
 * Whether a text is a template once templating is on: without Twig delimiters it renders as
 * itself, so it is never compiled nor rendered per recipient.
 */
export function hasTemplateSyntax(text: string): boolean {
  return /\{[{%#]/.test(text);
}

/** A recipient as templates and conditions see it: its data as stored, and its metas. */
export interface RecipientInput {
  /** The number's or the contact's data, as stored (JSON text). */
  data: string | null;
  /** The number (`number`), and for a contact its `id`, `name`, `created_at`, `updated_at`. */
  metas: Record<string, unknown>;
}

/** A recipient's text, or why it cannot have one. */
export type TextOutcome = { text: string } | { reason: string };

/** Why a render was stopped for taking longer than `timeLimitMs`. */
export function renderTooSlow(timeLimitMs: number): string {
  return `The template takes longer than ${timeLimitMs} ms to render.`;
}

/** A recipient's data as template and condition variables: a JSON object, else nothing. */
export function decodeData(data: string | null): Record<string, unknown> | null {
  if (!data) {
    return null;
  }
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The text as it will be sent: transliterated to the GSM alphabet when asked (which can lengthen
 * it: `œ` becomes `oe`), and refused when longer than a message may be.
 */
export function transliterated(text: string, gsm: boolean, what: string): TextOutcome {
  if ([...text].length > MAX_TEXT) {
    return { reason: `${what} is longer than ${MAX_TEXT} characters.` };
  }
  if (!gsm) {
    return { text };
  }
  const converted = toGsmAlphabet(text);
  return [...converted].length > MAX_TEXT
    ? {
        reason: `${what} is longer than ${MAX_TEXT} characters once transliterated to the GSM alphabet.`,
      }
    : { text: converted };
}
