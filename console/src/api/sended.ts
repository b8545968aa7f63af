import { answerOf, api } from './client';
import {
  type Entry,
  int,
  intOrNull,
  listEntries,
  type ListQuery,
  readMedia,
  rows,
  text,
  textOrNull,
  flag,
} from './entries';

/** TanStack Query's keys of sent messages: every key starts with SENDED_KEY. */
export const SENDED_KEY = ['sended'] as const;

/**
 * A phone's refusal of the message for a reason of its own (its credentials, its balance…), after
 * which the dispatch sent it through another phone (docs/dispatch.md#failover).
 */
function readRefusal(row: Entry) {
  return {
    phoneId: int(row.id_phone),
    adapter: text(row.adapter),
    at: text(row.at),
    reason: text(row.reason),
  };
}

export type Refusal = ReturnType<typeof readRefusal>;

/** A sent message (one recipient of a dispatch), as get_sended and get_entries give it. */
export function readSent(row: Entry) {
  return {
    id: int(row.id),
    phoneId: intOrNull(row.id_phone),
    at: text(row.at),
    text: text(row.text),
    destination: text(row.destination),
    flash: flag(row.flash),
    mms: flag(row.mms),
    status: text(row.status),
    /** Why the provider, or smsgw before it, refused the message. */
    error: textOrNull(row.error),
    /** The provider's id of the message. */
    uid: textOrNull(row.uid),
    adapter: text(row.adapter),
    tag: textOrNull(row.tag),
    originatingScheduled: intOrNull(row.originating_scheduled),
    segments: int(row.segments),
    encoding: text(row.encoding),
    createdAt: textOrNull(row.created_at),
    updatedAt: textOrNull(row.updated_at),
    medias: rows(row.medias).map(readMedia),
    /** The phones that refused it before the one of phoneId, the first first. */
    refusals: rows(row.refusals).map(readRefusal),
  };
}

export type SentMessage = ReturnType<typeof readSent>;

export async function listSent(query: ListQuery) {
  const page = await listEntries('sended', query);
  return { ...page, messages: page.entries.map(readSent) };
}

export async function getSent(id: number): Promise<SentMessage> {
  return readSent(await answerOf(api.GET('/api/sended/{id}', { params: { path: { id } } })));
}

export async function deleteSent(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/sended/{id}', { params: { path: { id } } }));
}
