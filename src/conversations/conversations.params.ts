import { ApiError } from '../common/errors/api-error';
import { isAbsent, Params } from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';

/** Where a page of conversations starts: after the conversation of this key (newest first). */
export interface ConversationKey {
  /** UTC, as stored. */
  at: string;
  number: string;
}

/** Where a page of a thread starts: before the message of this key (newest first). */
export interface MessageKey {
  /** UTC, as stored. */
  at: string;
  direction: Direction;
  id: number;
}

export type Direction = 'sent' | 'received';

/** get_conversations' parameters (docs/api.md#get_conversations). */
export interface ConversationsInput {
  before?: ConversationKey;
}

/** get_conversation's parameters (docs/api.md#get_conversation). */
export interface ThreadInput extends CorrespondentInput {
  before?: MessageKey;
}

/**
 * The correspondent of a thread: `number` in E.164 when it reads as a phone number, else the
 * sender as received (a name or short code), which only the messages received from it can
 * confirm (`asReceived`).
 */
export interface CorrespondentInput {
  number: string;
  asReceived: boolean;
}

/** A received message's `origin` is at most this long (inbound.service.ts). */
const MAX_ORIGIN_LENGTH = 20;

const UTC = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}`;
const CONVERSATION_CURSOR = new RegExp(`^(${UTC})\\|(.{1,${MAX_ORIGIN_LENGTH}})$`, 'u');
const MESSAGE_CURSOR = new RegExp(`^(${UTC})\\|(sent|received)\\|(\\d{1,10})$`);

export function parseConversationsParams(params: Params): ConversationsInput {
  // Rule 1.
  const token = cursorText(params.before);
  if (token === undefined) {
    return {};
  }
  const match = CONVERSATION_CURSOR.exec(token);
  if (match === null) {
    throw badCursor();
  }
  return { before: { at: match[1], number: match[2] } };
}

/** `country`: the caller's `default_phone_country`, which national numbers are read in. */
export function parseCorrespondentParams(params: Params, country: string): CorrespondentInput {
  const value = params.number;
  if (isAbsent(value) || typeof value !== 'string' || value.trim() === '') {
    throw ApiError.missing('number is required: the phone number of the conversation.');
  }
  const number = normalizePhoneNumber(value, country);
  if (number !== null) {
    return { number, asReceived: false };
  }
  const sender = value.trim();
  if ([...sender].length > MAX_ORIGIN_LENGTH) {
    throw notACorrespondent(value);
  }
  return { number: sender, asReceived: true };
}

export function parseThreadParams(params: Params, country: string): ThreadInput {
  const correspondent = parseCorrespondentParams(params, country);
  const token = cursorText(params.before);
  if (token === undefined) {
    return correspondent;
  }
  const match = MESSAGE_CURSOR.exec(token);
  const id = match === null ? NaN : Number(match[3]);
  if (match === null || id > 2_147_483_647) {
    throw badCursor();
  }
  return { ...correspondent, before: { at: match[1], direction: match[2] as Direction, id } };
}

/** A cursor as `next` carries it: base64url, so that a link holds it without escaping. */
export function conversationCursor(key: ConversationKey): string {
  return Buffer.from(`${key.at}|${key.number}`, 'utf8').toString('base64url');
}

export function messageCursor(key: MessageKey): string {
  return Buffer.from(`${key.at}|${key.direction}|${key.id}`, 'utf8').toString('base64url');
}

export function notACorrespondent(value: string): ApiError {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return ApiError.invalid(
    `number must be a valid phone number, or the sender of a message you received, got ${shown}.`,
  );
}

function cursorText(value: unknown): string | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(value)) {
    throw badCursor();
  }
  return Buffer.from(value, 'base64url').toString('utf8');
}

function badCursor(): ApiError {
  return ApiError.invalid(
    'before must be a cursor as a `next` link of this operation gives it; leave it out for the ' +
      'newest page.',
  );
}
