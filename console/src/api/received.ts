import { answerOf, api } from './client';
import {
  type Entry,
  flag,
  int,
  intOrNull,
  listEntries,
  type ListQuery,
  readMedia,
  rows,
  text,
  textOrNull,
} from './entries';

/** TanStack Query's keys of received messages: every key starts with RECEIVED_KEY. */
export const RECEIVED_KEY = ['received'] as const;

export type ReceivedStatus = 'read' | 'unread';

/** A received message, as get_received and get_entries give it. */
export function readReceived(row: Entry) {
  return {
    id: int(row.id),
    phoneId: intOrNull(row.id_phone),
    at: text(row.at),
    text: text(row.text),
    origin: text(row.origin),
    /** Whether smsgw read the text as a command. */
    command: flag(row.command),
    status: text(row.status) === 'read' ? ('read' as const) : ('unread' as const),
    mms: flag(row.mms),
    createdAt: textOrNull(row.created_at),
    updatedAt: textOrNull(row.updated_at),
    medias: rows(row.medias).map(readMedia),
  };
}

export type ReceivedMessage = ReturnType<typeof readReceived>;

export async function listReceived(query: ListQuery) {
  const page = await listEntries('received', query);
  return { ...page, messages: page.entries.map(readReceived) };
}

export async function getReceived(id: number): Promise<ReceivedMessage> {
  return readReceived(await answerOf(api.GET('/api/received/{id}', { params: { path: { id } } })));
}

export async function markReceived(id: number, status: ReceivedStatus): Promise<ReceivedMessage> {
  return readReceived(
    await answerOf(api.POST('/api/received/{id}', { params: { path: { id } }, body: { status } })),
  );
}

export async function deleteReceived(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/received/{id}', { params: { path: { id } } }));
}
