import { answerOf, api, type paths } from './client';

type ListOperation = paths['/api/list/{entry_type}']['get'];

/** The entry types of get_entries (`sended`, `received`, `phone`…). */
export type EntryType = ListOperation['parameters']['path']['entry_type'];

/** get_entries' query: its filters and its paging (page, after_id, before_id). */
export type ListQuery = NonNullable<ListOperation['parameters']['query']>;

/** One listed entry; the OpenAPI document gives entries as open objects, read by `read*`. */
export type Entry = NonNullable<
  ListOperation['responses'][200]['content']['application/json']['response']
>[number];

/** Where a page starts: the cursor of a `next` or `prev` link, as get_entries' query takes it. */
export type Cursor = Pick<ListQuery, 'page' | 'after_id' | 'before_id'>;

export const CURSOR_NAMES = ['page', 'after_id', 'before_id'] as const;

/** The highest id the API reads: `before_id` at it asks for the newest page. */
export const NEWEST: Cursor = { before_id: 2_147_483_647 };

/** The API's page: 25 entries (docs/api.md, get_entries). */
export const PAGE_SIZE = 25;

export interface EntriesPage {
  entries: Entry[];
  next: Cursor | null;
  prev: Cursor | null;
}

/** One page of the caller's entries of `type`, with the cursors of the pages beside it. */
export async function listEntries(type: EntryType, query: ListQuery): Promise<EntriesPage> {
  const call = api.GET('/api/list/{entry_type}', {
    params: { path: { entry_type: type }, query },
  });
  const entries = await answerOf(call);
  const { data } = await call;
  return { entries, next: cursorOf(data?.next), prev: cursorOf(data?.prev) };
}

/**
 * The cursor a `next` or `prev` link of get_entries carries, in the path
 * (`/after/12/`, `/before/12/`, `/3/`) or in the query.
 */
export function cursorOf(link: string | null | undefined): Cursor | null {
  if (!link) {
    return null;
  }
  const url = new URL(link, document.baseURI);
  const path = /\/api\/list\/\w+\/(?:(after|before)\/)?(\d+)\/?$/.exec(url.pathname);
  if (path) {
    const id = Number(path[2]);
    return path[1] === 'after'
      ? { after_id: id }
      : path[1] === 'before'
        ? { before_id: id }
        : { page: id };
  }
  for (const name of CURSOR_NAMES) {
    const value = url.searchParams.get(name);
    if (value !== null && /^\d+$/.test(value)) {
      return { [name]: Number(value) };
    }
  }
  return null;
}

/** Every entry of `type`, page after page: for the few entries a form chooses from (phones). */
export async function listAllEntries(type: EntryType): Promise<Entry[]> {
  const all: Entry[] = [];
  let query: ListQuery = {};
  for (;;) {
    const page = await listEntries(type, query);
    all.push(...page.entries);
    if (!page.next || page.entries.length === 0) {
      return all;
    }
    query = page.next;
  }
}

/*
 * Readers of an entry's fields. The OpenAPI document declares entries as open objects, so their
 * fields are read and checked here, once, rather than trusted by a cast.
 */

export function int(value: unknown): number {
  const number = Number(value);
  return Number.isInteger(number) ? number : 0;
}

export function intOrNull(value: unknown): number | null {
  return value === null || value === undefined || value === '' ? null : int(value);
}

export function text(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  return typeof value === 'number' ? String(value) : '';
}

export function textOrNull(value: unknown): string | null {
  return value === null || value === undefined || value === '' ? null : text(value);
}

export function flag(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** The rows of a list field (`medias`, `numbers`…), each an open object like an entry. */
export function rows(value: unknown): Entry[] {
  return Array.isArray(value)
    ? value.filter((item): item is Entry => typeof item === 'object' && item !== null)
    : [];
}

/** A media of a message: its id and where the API serves its file. */
export function readMedia(row: Entry) {
  return { id: int(row.id), path: text(row.path) };
}

/** A phone as a message names it: its id and name. */
export function readPhone(row: Entry) {
  return { id: int(row.id), name: text(row.name) };
}

export type Phone = ReturnType<typeof readPhone>;

export const PHONES_KEY = ['phone', 'list'] as const;

export async function listPhones(): Promise<Phone[]> {
  return (await listAllEntries('phone')).map(readPhone);
}

export const PHONE_GROUPS_KEY = ['phone_group', 'list'] as const;

/** The caller's phone groups, by id and name (read as phones are). */
export async function listPhoneGroups(): Promise<Phone[]> {
  return (await listAllEntries('phone_group')).map(readPhone);
}

/** One page of the caller's entries of a type, without its cursors: for pickers that search. */
export async function listEntryRows(type: EntryType, query: ListQuery = {}): Promise<Entry[]> {
  return (await listEntries(type, query)).entries;
}
