import { answerOf, api, type paths } from './client';
import { listEntries } from './entries';

/** A scheduled message as get_scheduled answers it, with what it is sent to. */
export type Scheduled = NonNullable<
  paths['/api/scheduled/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

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

export const SCHEDULED_KEY = ['scheduled'] as const;
export const SENDED_KEY = ['sended'] as const;

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

/** One of the caller's messages not yet taken by the dispatch (404 once it has been). */
export function getScheduled(id: number): Promise<Scheduled> {
  return answerOf(api.GET('/api/scheduled/{id}', { params: { path: { id } } }));
}

/** The first page of the messages the dispatch has sent for a scheduled message. */
export async function sentFor(scheduledId: number): Promise<Sended[]> {
  const entries = await listEntries('sended', { originating_scheduled: scheduledId });
  return entries as Sended[];
}

/** The text as the dispatch would send it to one contact (post_scheduled_preview). */
export function previewText(text: string, contactId: number): Promise<TextPreview> {
  return answerOf(api.POST('/api/scheduled/preview', { body: { text, id_contact: contactId } }));
}
