import { answerOf, api } from './client';
import { type Cursor, cursorOf } from './entries';

/** TanStack Query's keys of the STOP list: every key starts with STOP_LIST_KEY. */
export const STOP_LIST_KEY = ['stop-list'] as const;

export interface StopPage {
  numbers: Array<{ id: number; number: string; createdAt: string }>;
  next: Cursor | null;
  prev: Cursor | null;
}

/** One page of the STOP list (25 numbers, by id), with the cursors of the pages beside it. */
export async function listStop(cursor: Cursor): Promise<StopPage> {
  const call = api.GET('/api/stop', { params: { query: cursor } });
  const numbers = await answerOf(call);
  const { data } = await call;
  return {
    numbers: numbers.map((entry) => ({
      id: entry.id,
      number: entry.number,
      createdAt: entry.created_at,
    })),
    next: cursorOf(data?.next),
    prev: cursorOf(data?.prev),
  };
}

/** Adds a number to the STOP list (one already there is kept as it is); its id. */
export function addStop(number: string): Promise<number> {
  return answerOf(api.POST('/api/stop', { body: { number } }));
}

/** Removes a number from the STOP list: messages reach it again. */
export async function removeStop(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/stop/{id}', { params: { path: { id } } }));
}
