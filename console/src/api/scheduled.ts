import { answerOf, api, type paths } from './client';
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

/** TanStack Query's keys of scheduled messages: every key starts with SCHEDULED_KEY. */
export const SCHEDULED_KEY = ['scheduled'] as const;

/** What post_update_scheduled takes; a field left out keeps its stored value. */
export type ScheduledUpdate = NonNullable<
  paths['/api/scheduled/{id}']['post']['requestBody']
>['content']['application/json'];

/** A recipient number with its template data (a JSON text). */
function readNumber(row: Entry) {
  return { number: text(row.number), data: text(row.data) || '[]' };
}

/** A contact, group or conditional group a message goes to. */
function readNamed(row: Entry) {
  return { id: int(row.id), name: text(row.name) };
}

/** A message waiting for the dispatch, as get_scheduled and get_entries give it. */
export function readScheduled(row: Entry) {
  return {
    id: int(row.id),
    at: text(row.at),
    text: text(row.text),
    flash: flag(row.flash),
    mms: flag(row.mms),
    phoneId: intOrNull(row.id_phone),
    phoneGroupId: intOrNull(row.id_phone_group),
    tag: textOrNull(row.tag),
    priority: text(row.priority) === 'high' ? ('high' as const) : ('normal' as const),
    /** Minutes after `at` within which it may still be sent; null: no limit. */
    validity: intOrNull(row.validity),
    /** The window it was given: `none`, a window, or null for the user's send_window setting. */
    window: textOrNull(row.window),
    /** When it may go out: `at`, or the next opening of its window from `at`. */
    sendAfter: text(row.send_after) || text(row.at),
    createdAt: textOrNull(row.created_at),
    updatedAt: textOrNull(row.updated_at),
    numbers: rows(row.numbers).map(readNumber),
    contacts: rows(row.contacts).map(readNamed),
    groups: rows(row.groups).map(readNamed),
    conditionalGroups: rows(row.conditional_groups).map(readNamed),
    medias: rows(row.medias).map(readMedia),
  };
}

export type ScheduledMessage = ReturnType<typeof readScheduled>;

export async function listScheduled(query: ListQuery) {
  const page = await listEntries('scheduled', query);
  return { ...page, messages: page.entries.map(readScheduled) };
}

/**
 * Whether the scheduled message `id` still waits for the dispatch. Read from the listing after
 * the id before it, which answers 200 either way: a detail asking this of every sent message's
 * origin would otherwise log a 404 each time the origin was sent.
 */
export async function isStillScheduled(id: number): Promise<boolean> {
  const page = await listEntries('scheduled', { after_id: Math.max(id - 1, 0) });
  return page.entries.length > 0 && int(page.entries[0].id) === id;
}

export async function getScheduled(id: number): Promise<ScheduledMessage> {
  return readScheduled(
    await answerOf(api.GET('/api/scheduled/{id}', { params: { path: { id } } })),
  );
}

export async function updateScheduled(
  id: number,
  update: ScheduledUpdate,
): Promise<ScheduledMessage> {
  return readScheduled(
    await answerOf(api.POST('/api/scheduled/{id}', { params: { path: { id } }, body: update })),
  );
}

export async function deleteScheduled(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/scheduled/{id}', { params: { path: { id } } }));
}

/** A sent message as get_sended answers it, which is also how get_entries lists them. */
export type Sended = NonNullable<
  paths['/api/sended/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

/** The text one contact would receive, with its SMS segments and encoding. */
export type TextPreview = NonNullable<
  paths['/api/scheduled/preview']['post']['responses'][200]['content']['application/json']['response']
>;

/** post_scheduled's fields but its files, as multipart form parts. */
export type NewScheduled = Omit<
  paths['/api/scheduled']['post']['requestBody']['content']['multipart/form-data'],
  'numbers_csv' | 'medias'
>;

/** The files post_scheduled takes beside its fields. */
export interface ScheduledFiles {
  numbersCsv?: File;
  medias?: readonly File[];
}

/**
 * post_scheduled, always as multipart/form-data: the one body that carries a CSV of numbers and
 * medias beside the fields. Lists go as PHP-style `name[i]` parts, flags as `1`/`0`.
 */
export function createScheduled(message: NewScheduled, files: ScheduledFiles): Promise<number> {
  return answerOf(
    api.POST('/api/scheduled', {
      body: message,
      bodySerializer: () => formOf(message, files),
    }),
  );
}

function formOf(message: NewScheduled, { numbersCsv, medias = [] }: ScheduledFiles): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(message)) {
    if (Array.isArray(value)) {
      value.forEach((item: string | number | { number: string; data?: string }, index) => {
        if (typeof item === 'object') {
          form.append(`${name}[${index}][number]`, item.number);
          if (item.data !== undefined) {
            form.append(`${name}[${index}][data]`, item.data);
          }
        } else {
          form.append(`${name}[${index}]`, String(item));
        }
      });
    } else if (typeof value === 'boolean') {
      form.append(name, value ? '1' : '0');
    } else if (value !== undefined) {
      form.append(name, String(value));
    }
  }
  if (numbersCsv) {
    form.append('numbers_csv', numbersCsv);
  }
  for (const media of medias) {
    form.append('medias[]', media);
  }
  return form;
}

/** The first page of the messages the dispatch has sent for a scheduled message. */
export async function sentFor(scheduledId: number): Promise<Sended[]> {
  const { entries } = await listEntries('sended', { originating_scheduled: scheduledId });
  return entries as Sended[];
}

/** The text as the dispatch would send it to one contact (post_scheduled_preview). */
export function previewText(text: string, contactId: number): Promise<TextPreview> {
  return answerOf(api.POST('/api/scheduled/preview', { body: { text, id_contact: contactId } }));
}
