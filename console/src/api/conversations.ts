import { answerOf, api, type paths } from './client';

/** One conversation of the list: a number with its contact, its newest message, its unread. */
export type Conversation = NonNullable<
  paths['/api/conversation']['get']['responses'][200]['content']['application/json']['response']
>[number];

/** One message of a thread, sent or received. */
export type ConversationMessage = NonNullable<
  paths['/api/conversation/{number}']['get']['responses'][200]['content']['application/json']['response']
>[number];

/** A page of a listing and the cursor of the one after it, if any. */
export interface Page<T> {
  items: T[];
  before: string | null;
}

/** TanStack Query's keys: the list and each thread are under `conversations`. */
export const CONVERSATIONS_KEY = ['conversations'] as const;
export const CONVERSATION_LIST_KEY = [...CONVERSATIONS_KEY, 'list'] as const;
export const threadKey = (number: string) => [...CONVERSATIONS_KEY, 'thread', number] as const;

/** The `before` cursor a `next` link carries, for the page after it. */
function cursorOf(next: string | null | undefined): string | null {
  return next ? new URL(next).searchParams.get('before') : null;
}

export async function listConversations(before: string | null): Promise<Page<Conversation>> {
  const call = api.GET('/api/conversation', {
    params: { query: before === null ? {} : { before } },
  });
  const items = await answerOf(call);
  return { items, before: cursorOf((await call).data?.next) };
}

export async function getThread(
  number: string,
  before: string | null,
): Promise<Page<ConversationMessage>> {
  const call = api.GET('/api/conversation/{number}', {
    params: { path: { number }, query: before === null ? {} : { before } },
  });
  const items = await answerOf(call);
  return { items, before: cursorOf((await call).data?.next) };
}

/** Marks the number's unread messages read; how many there were. */
export function markConversationRead(number: string): Promise<number> {
  return answerOf(api.POST('/api/conversation/{number}/read', { params: { path: { number } } }));
}

/** The name of the caller's contact with `number`, or null when none has it. */
export async function contactNameOf(number: string): Promise<string | null> {
  const contacts = await answerOf(
    api.GET('/api/list/{entry_type}', {
      params: { path: { entry_type: 'contact' }, query: { number } },
    }),
  );
  const first = contacts[0] as { name?: unknown } | undefined;
  return typeof first?.name === 'string' ? first.name : null;
}

/**
 * Schedules `text` to `number` now, through `phoneId` when given; the id of the scheduled
 * message.
 */
export function sendReply(number: string, text: string, phoneId: number | null): Promise<number> {
  const body = { text, numbers: [number] };
  return answerOf(
    api.POST('/api/scheduled', { body: phoneId === null ? body : { ...body, id_phone: phoneId } }),
  );
}
